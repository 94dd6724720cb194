-- lcm/trace.lua - symbolic values and the expression graph they build.
--
-- The generator calls every model function once with symbolic arguments.
-- Arithmetic on them (through metatables) appends nodes to the graph of the
-- regime being traced; identical nodes are shared (hash-consing) and
-- constant sub-expressions are folded.  Lua cannot overload `if`, `and`,
-- `or`, `not` or `==` between a table and a number, so the tracer also keeps
-- track of what each traced call produced and consumed: a comparison that is
-- never used, or an argument that never reaches the result, is how a branch
-- on a traced value shows itself, and it is reported as an error.

local T = {}

local Sym = {}      -- metatable of traced scalar values
local Methods = {}  -- x:le(y), x:eq("label"), ...
local Param = {}    -- metatable of parameter arguments (scalar or array)

local graph = nil   -- the graph of the regime being traced
local frame = nil   -- the traced function call in progress

---------------------------------------------------------------------------
-- errors and source locations
---------------------------------------------------------------------------

-- The innermost stack frame outside the DSL's own chunks ("=lcm/...") and
-- C: the user's line that led here.  A user function's `return x:le(y)` is
-- a tail call that removes its own frame; then the traced function's
-- definition line stands in.
local fixed_where = nil -- T.at: where every node made meanwhile comes from

function T.user_where()
  if fixed_where then return fixed_where end
  local level = 2
  while true do
    local info = debug.getinfo(level, "Sl")
    if not info then return frame and frame.where or "?" end
    if info.what ~= "C" and info.source:sub(1, 5) ~= "=lcm/" then
      local src = info.source:sub(1, 1) == "@" and info.source:sub(2) or info.short_src
      return src .. ":" .. tostring(info.currentline)
    end
    level = level + 1
  end
end

-- Calls fn(...) with `where` as the source of every node it makes: for the
-- DSL's own algorithms (lcm.diff), whose deep work would otherwise walk the
-- stack for each node, and whose nodes all belong to the user's one call.
function T.at(where, fn, ...)
  local saved = fixed_where
  fixed_where = where
  local ok, r = pcall(fn, ...)
  fixed_where = saved
  if not ok then error(r, 0) end
  return r
end

-- Context of the current trace, for messages: "regime 'r', function 'f'".
function T.context()
  if not graph then return nil end
  local s = "regime '" .. graph.regime .. "'"
  if frame then s = s .. ", function '" .. frame.fname .. "'" end
  return s
end

-- Raises a finished message (no position added by Lua).
-- Warnings go back to the host, which prints them (or not) its own way.
local warnings = {}
function T.warn(msg) warnings[#warnings + 1] = msg end
function T.take_warnings()
  local w = warnings
  warnings = {}
  return w
end

function T.fail(msg, where)
  local ctx = T.context()
  where = where or T.user_where()
  error((where and where .. ": " or "") .. (ctx and ctx .. ": " or "") .. msg, 0)
end

---------------------------------------------------------------------------
-- graphs and nodes
---------------------------------------------------------------------------

-- srcs: shared table {list = {}, index = {}} of source locations.
function T.new_graph(regime, srcs, info)
  return {
    regime = regime, nodes = {}, index = {}, syms = {}, srcs = srcs,
    info = info, -- { states = {name -> var}, actions = ..., nperiods = n }
  }
end

function T.set_graph(g) graph = g end
function T.get_graph() return graph end

-- The graph's size, and its undoing to a size: what a trial traced after
-- T.mark() leaves no trace of after T.rollback(mark) (the margin probe of
-- gen/dsl/egm_plan.lua; source locations it added stay, unused).
function T.mark() return #graph.nodes end
function T.rollback(mark)
  for key, id in pairs(graph.index) do
    if id > mark then graph.index[key] = nil end
  end
  for id = #graph.nodes, mark + 1, -1 do
    graph.nodes[id], graph.syms[id] = nil, nil
  end
end

local function src_id(where)
  if not graph.srcs or where == "?" then return nil end
  local label = where
  if frame then label = label .. " (" .. graph.regime .. "." .. frame.fname .. ")" end
  local id = graph.srcs.index[label]
  if not id then
    graph.srcs.list[#graph.srcs.list + 1] = label
    id = #graph.srcs.list - 1
    graph.srcs.index[label] = id
  end
  return id
end

local function sym(id)
  local s = graph.syms[id]
  if not s then
    s = setmetatable({ id = id }, Sym)
    graph.syms[id] = s
  end
  return s
end

function T.node(id) return graph.nodes[id] end
function T.sym(id) return sym(id) end
function T.is_sym(x) return getmetatable(x) == Sym end
function T.is_param(x) return getmetatable(x) == Param end

local BOOL_OPS = { ["not"] = true, lt = true, le = true, gt = true, ge = true,
  eq = true, ne = true, ["and"] = true, ["or"] = true }

-- Constant folding uses Lua's arithmetic and C's libm (what Lua calls), the
-- same functions the generated code calls; functions Lua lacks (tanh,
-- normal_cdf, log1p, expm1) are left to the generated code.
local FOLD = {
  neg = function(a) return -a end,
  log = math.log, exp = math.exp, sqrt = math.sqrt, abs = math.abs,
  floor = function(a) return math.floor(a) + 0.0 end,
  ceil = function(a) return math.ceil(a) + 0.0 end,
  add = function(a, b) return a + b end, sub = function(a, b) return a - b end,
  mul = function(a, b) return a * b end, div = function(a, b) return a / b end,
  pow = function(a, b) return a ^ b end,
  mod = function(a, b) return a - math.floor(a / b) * b end,
  idiv = function(a, b) return math.floor(a / b) + 0.0 end,
  lt = function(a, b) return a < b end, le = function(a, b) return a <= b end,
  gt = function(a, b) return a > b end, ge = function(a, b) return a >= b end,
  eq = function(a, b) return a == b end, ne = function(a, b) return a ~= b end,
}

local function is_const(id) return graph.nodes[id].op == "const" end
local function kval(id) return graph.nodes[id].k end

local function truthy(k) return k ~= 0 end

-- Appends (or finds) a node; returns its id.  `spec` = {op=, args=, ref=, k=,
-- type=, card=, cat=, name=}; args are node ids.
local function intern(spec)
  local key
  if spec.op == "const" then
    key = "c" .. string.format("%a", spec.k) .. (spec.type or "num")
  else
    key = spec.op .. ":" .. tostring(spec.ref or "") .. ":" .. table.concat(spec.args or {}, ",")
  end
  local id = graph.index[key]
  if not id then
    id = #graph.nodes + 1
    spec.args = spec.args or {}
    spec.type = spec.type or (BOOL_OPS[spec.op] and "bool") or "num"
    spec.src = src_id(T.user_where())
    graph.nodes[id] = spec
    graph.index[key] = id
  end
  if frame then frame.produced[#frame.produced + 1] = id end
  return id
end

function T.const_id(x)
  if type(x) == "boolean" then
    return intern({ op = "const", k = x and 1.0 or 0.0, type = "bool" })
  end
  return intern({ op = "const", k = x + 0.0 })
end

-- Converts an operand to a node id, or fails with a message naming `opname`.
local function to_id(x, opname)
  local t = type(x)
  if t == "number" or t == "boolean" then return T.const_id(x) end
  local mt = getmetatable(x)
  if mt == Sym then return x.id end
  if mt == Param then return T.param_node(x) end
  T.fail(string.format("cannot use a %s as an operand of '%s' (expected a number or a traced value)",
    t == "table" and "table" or t, opname), T.user_where())
end
T.to_id = to_id

local function consume(ids)
  if frame then
    for _, id in ipairs(ids) do frame.consumed[id] = true end
  end
end
T.consume = consume

-- Simplifications that hold for every value (NaN and infinities included).
local function simplify(op, a)
  local n = graph.nodes
  if op == "where" and is_const(a[1]) then return truthy(kval(a[1])) and a[2] or a[3] end
  if op == "where" and a[2] == a[3] then return a[2] end
  if op == "and" then
    if is_const(a[1]) then return truthy(kval(a[1])) and a[2] or a[1] end
    if is_const(a[2]) then return truthy(kval(a[2])) and a[1] or a[2] end
  end
  if op == "or" then
    if is_const(a[1]) then return truthy(kval(a[1])) and a[1] or a[2] end
    if is_const(a[2]) then return truthy(kval(a[2])) and a[2] or a[1] end
  end
  if (op == "add" or op == "sub") and is_const(a[2]) and kval(a[2]) == 0 then return a[1] end
  if op == "add" and is_const(a[1]) and kval(a[1]) == 0 and n[a[2]].type == "num" then return a[2] end
  if (op == "mul" or op == "div") and is_const(a[2]) and kval(a[2]) == 1 then return a[1] end
  if op == "mul" and is_const(a[1]) and kval(a[1]) == 1 and n[a[2]].type == "num" then return a[2] end
  if op == "neg" and n[a[1]].op == "neg" then return n[a[1]].args[1] end
  if op == "pow" and is_const(a[2]) and kval(a[2]) == 1 and n[a[1]].type == "num" then return a[1] end
  return nil
end

-- Builds an operation node from operands (numbers, booleans, traced values).
function T.op(op, ...)
  local operands = table.pack(...)
  local args = {}
  for i = 1, operands.n do args[i] = to_id(operands[i], op) end
  consume(args)
  local s = simplify(op, args)
  if s then return sym(s) end
  -- x ^ 2 and x ^ -1 as a product and a quotient: a constant exponent is
  -- common (often a folded fixed parameter such as 1 - sigma), and in the
  -- innermost action loop pow costs several times a multiplication.  The
  -- value is the same up to pow's rounding (within an ulp).
  if op == "pow" and is_const(args[2]) and not is_const(args[1]) then
    local k = kval(args[2])
    if k == 2 then return T.op("mul", sym(args[1]), sym(args[1])) end
    if k == -1 then return T.op("div", 1, sym(args[1])) end
  end
  local all_const = true
  for _, id in ipairs(args) do all_const = all_const and is_const(id) end
  if all_const and FOLD[op] then
    local vals = {}
    for i, id in ipairs(args) do vals[i] = kval(id) end
    local v = FOLD[op](table.unpack(vals))
    if type(v) == "boolean" then return sym(T.const_id(v)) end
    return sym(intern({ op = "const", k = v + 0.0 }))
  end
  if all_const and (op == "not" or op == "and" or op == "or") then
    local a, b = truthy(kval(args[1])), args[2] and truthy(kval(args[2]))
    local v = (op == "not" and not a) or (op == "and" and a and b) or (op == "or" and (a or b))
    return sym(T.const_id(v and true or false))
  end
  -- a choice between two conditions is a condition (as ir/ir.c types it)
  local bool = op == "where" and graph.nodes[args[2]].type == "bool" and graph.nodes[args[3]].type == "bool"
  return sym(intern({ op = op, args = args, type = bool and "bool" or nil }))
end

-- The value of node `id` at one age and period when nothing else decides
-- it (constants, age, period and what folds from them), or nil: what the
-- generator knows of a regime probability at each period (gen/dsl/reach.lua).
function T.value_at(id, age, period)
  local memo = {}
  local function value(i)
    if memo[i] ~= nil then return memo[i] or nil end
    local n, v = graph.nodes[i], nil
    local a = n.args
    if n.op == "const" then v = n.k
    elseif n.op == "age" then v = age
    elseif n.op == "period" then v = period
    elseif n.op == "where" then
      local c = value(a[1])
      if c ~= nil then v = value(truthy(c) and a[2] or a[3])
      else
        local x, y = value(a[2]), value(a[3])
        if x ~= nil and x == y then v = x end
      end
    elseif n.op == "not" then
      local x = value(a[1])
      if x ~= nil then v = truthy(x) and 0.0 or 1.0 end
    elseif n.op == "and" or n.op == "or" then
      local x, y = value(a[1]), value(a[2])
      local decides = n.op == "or" -- a true operand decides `or`, a false one `and`
      if (x ~= nil and truthy(x) == decides) or (y ~= nil and truthy(y) == decides) then v = decides and 1.0 or 0.0
      elseif x ~= nil and y ~= nil then v = decides and 0.0 or 1.0 end
    elseif FOLD[n.op] then
      local vals = {}
      for k, arg in ipairs(a) do
        vals[k] = value(arg)
        if vals[k] == nil then vals = nil break end
      end
      if vals then
        v = FOLD[n.op](table.unpack(vals))
        if type(v) == "boolean" then v = v and 1.0 or 0.0 end
      end
    end
    memo[i] = v == nil and false or v
    return v
  end
  return value(id)
end

-- Leaves: variables of the regime.
function T.var(op, ref, extra)
  local spec = { op = op, ref = ref }
  for k, v in pairs(extra or {}) do spec[k] = v end
  local id = intern(spec)
  local node = graph.nodes[id]
  for k, v in pairs(extra or {}) do node[k] = node[k] or v end
  return sym(id)
end

-- The ids of the nodes node `root` reaches (itself included), ascending:
-- a node's operands come before it.  Without recursion, so that a deep
-- expression needs no deep stack (lcm.diff, T.substitute, the EGM plan).
function T.reachable(root)
  local reach, stack, ids = { [root] = true }, { root }, {}
  while #stack > 0 do
    local i = table.remove(stack)
    ids[#ids + 1] = i
    for _, a in ipairs(graph.nodes[i].args) do
      if not reach[a] then
        reach[a] = true
        stack[#stack + 1] = a
      end
    end
  end
  table.sort(ids)
  return ids
end

-- A memoised test of node ids: does node i reach one of the nodes in the
-- set `leaves` (ids as keys)?  lcm.inverse and the EGM plan ask it.
function T.reaches(leaves)
  local memo = {}
  local function f(i)
    if memo[i] == nil then
      local r = leaves[i] or false
      if not r then
        for _, a in ipairs(graph.nodes[i].args) do
          if f(a) then r = true break end
        end
      end
      memo[i] = r
    end
    return memo[i]
  end
  return f
end

-- The value of node `root` with node `from` replaced by node `to`: the
-- nodes on the way from one to the other rebuilt with the tracer's
-- constructor (so simplified and shared), the rest kept.  The endogenous
-- grid method reads next wealth as a function of savings this way
-- (gen/dsl/egm_plan.lua).
function T.substitute(root, from, to)
  local map = {}
  for _, i in ipairs(T.reachable(root)) do
    local n = graph.nodes[i]
    if i == from then
      map[i] = to
    else
      local args, changed = {}, false
      for k, a in ipairs(n.args) do
        args[k] = map[a] or a
        changed = changed or args[k] ~= a
      end
      if not changed then
        map[i] = i
      elseif n.op == "pidx" then -- indexed by discrete variables only, which `from` is not
        map[i] = intern({ op = "pidx", ref = n.ref, args = args })
      else
        local syms = {}
        for k, a in ipairs(args) do syms[k] = sym(a) end
        map[i] = T.op(n.op, table.unpack(syms)).id
      end
    end
  end
  return sym(map[root])
end

-- The node of x for a function of calculus (lcm.diff, lcm.inverse) that
-- needs a continuous state or action of the regime; fail(msg) otherwise.
function T.continuous_variable(x, fail)
  if not graph then fail("only available inside model functions") end
  local n = getmetatable(x) == Sym and graph.nodes[x.id]
  if not n or (n.op ~= "state" and n.op ~= "action") then
    fail("the second argument must be a state or an action of the regime (a function's argument)")
  end
  if n.card then fail("'" .. tostring(n.name) .. "' is discrete: only a continuous state or action will do") end
  return n
end

function T.type_of(x)
  if type(x) == "boolean" then return "bool" end
  if type(x) == "number" then return "num" end
  if getmetatable(x) == Sym then return graph.nodes[x.id].type end
  return "num"
end

---------------------------------------------------------------------------
-- traced function calls
---------------------------------------------------------------------------

-- Calls fn(args...) as the traced function `fname`.  After the call, every
-- comparison produced and every traced argument must have reached the
-- result (or another node); otherwise the function branched on a traced
-- value with a Lua `if`/`and`/`or`/`not`/`==`, which tracing cannot see.
function T.call(fname, fn, args, nargs, fn_where)
  local saved = frame
  frame = { fname = fname, produced = {}, consumed = {}, args_used = {}, where = fn_where }
  local ok, res = xpcall(fn, function(e)
    if type(e) == "string" and not e:find("regime '", 1, true) then
      local ctx = "regime '" .. graph.regime .. "', function '" .. fname .. "'"
      -- patterns on the message's head: the sandbox bounds a pattern's cost
      -- by the length of its subject (gen/lua_sandbox.c), and a model may
      -- raise a long message
      local head = e:sub(1, 2000)
      local indexed = head:match("attempt to index a number value %(local '([%w_]+)'%)")
      if indexed then
        e = e .. ": '" .. indexed .. "' is a number here (a scalar fixed parameter?) but the function indexes it"
      end
      local file, line = head:match("^(.-):(%d+): ")
      if file then return file .. ":" .. line .. ": " .. ctx .. ": " .. e:sub(#file + #line + 4) end
      return fn_where .. ": " .. ctx .. ": " .. e
    end
    return e
  end, table.unpack(args, 1, nargs))
  local f = frame
  frame = saved
  if not ok then error(res, 0) end
  return res, f
end

-- Collects node ids a result refers to (scalars, Markov tables, rows).
local function result_ids(res, out)
  if getmetatable(res) == Sym then out[res.id] = true
  elseif getmetatable(res) == Param then
    out[rawget(res, "root") or res] = true
    for _, ix in ipairs(res.indices) do out[ix.id] = true end
  elseif type(res) == "table" and getmetatable(res) == nil then
    for _, v in pairs(res) do result_ids(v, out) end
  end
  return out
end

function T.check_call(f, res, args, argnames, nargs, fn_where)
  local returned = result_ids(res, {})
  local ctx = "regime '" .. graph.regime .. "', function '" .. f.fname .. "'"
  for _, id in ipairs(f.produced) do
    local n = graph.nodes[id]
    if n.type == "bool" and n.op ~= "const" and not f.consumed[id] and not returned[id] then
      local where = n.src and graph.srcs.list[n.src + 1]:match("^(.-) %(") or fn_where
      error(where .. ": " .. ctx .. ": this comparison is never used. Lua 'if', 'and', 'or' " ..
        "and 'not' cannot branch on traced values: write lcm.where(cond, a, b), " ..
        "lcm.all(...), lcm.any(...) or lcm.not_(x) instead", 0)
    end
  end
  for i = 1, nargs do
    local a = args[i]
    local used
    if getmetatable(a) == Sym then used = f.consumed[a.id] or returned[a.id]
    elseif getmetatable(a) == Param then used = f.args_used[a] or returned[a]
    else used = true end
    if not used then
      error(fn_where .. ": " .. ctx .. ": argument '" .. argnames[i] .. "' never reaches the result. " ..
        "If the function branches on it with 'if' or compares it with '==' (which Lua cannot trace), " ..
        "use lcm.where(...) and x:eq(y); if it is not needed, remove it", 0)
    end
  end
end

---------------------------------------------------------------------------
-- parameters: scalars, or arrays indexed by discrete variables
---------------------------------------------------------------------------

-- A parameter argument.  `slot_of(indices)` is supplied by the builder and
-- returns the slot index for this (regime, function, name) given the index
-- list of this use ({ {id=, card=, name=}, ... }).
function T.new_param(name, slot_of, indices)
  return setmetatable({ name = name, slot_of = slot_of, indices = indices or {} }, Param)
end

function T.param_node(p)
  if frame then frame.args_used[rawget(p, "root") or p] = true end
  local slot = p.slot_of(p.indices)
  if #p.indices == 0 then
    return intern({ op = "param", ref = slot })
  end
  local args = {}
  for i, ix in ipairs(p.indices) do args[i] = ix.id end
  consume(args)
  return intern({ op = "pidx", ref = slot, args = args })
end

-- p[i]: i must be a discrete variable (state, action) or `period`.
function T.param_index(p, key)
  local n = getmetatable(key) == Sym and graph.nodes[key.id]
  if not (n and n.card) then
    local got = not n and type(key) or (n.op == "state" or n.op == "action") and n.name and
      "the continuous " .. n.op .. " '" .. n.name .. "'" or n.op == "age" and "age (index by period)" or
      "a computed value"
    T.fail("array parameter '" .. p.name .. "' must be indexed by a discrete state, a discrete " ..
      "action or period (got " .. got .. ")", T.user_where())
  end
  local idx = {}
  for i, ix in ipairs(p.indices) do idx[i] = ix end
  idx[#idx + 1] = { id = key.id, card = n.card, name = n.name, cat = n.cat }
  if #idx > 7 then T.fail("array parameter '" .. p.name .. "' has more than 7 dimensions") end
  local q = T.new_param(p.name, p.slot_of, idx)
  q.root = rawget(p, "root") or p
  return q
end

-- Internal: index by a constant category (rows returned by Markov functions).
function T.param_index_const(p, j, card, name)
  local idx = {}
  for i, ix in ipairs(p.indices) do idx[i] = ix end
  idx[#idx + 1] = { id = T.const_id(j), card = card, name = name }
  local q = T.new_param(p.name, p.slot_of, idx)
  q.root = rawget(p, "root") or p
  return q
end

---------------------------------------------------------------------------
-- metatables
---------------------------------------------------------------------------

local function no_compare()
  T.fail("Lua comparison operators (<, <=, >, >=, ==) cannot be traced: use x:lt(y), x:le(y), " ..
    "x:gt(y), x:ge(y), x:eq(y) or lcm.lt(x, y), ...", T.user_where())
end

local function arith(op)
  return function(a, b) return T.op(op, a, b) end
end

for _, mt in ipairs({ Sym, Param }) do
  mt.__add, mt.__sub, mt.__mul, mt.__div = arith("add"), arith("sub"), arith("mul"), arith("div")
  mt.__pow, mt.__mod, mt.__idiv = arith("pow"), arith("mod"), arith("idiv")
  mt.__unm = function(a) return T.op("neg", a) end
  mt.__lt, mt.__le, mt.__eq = no_compare, no_compare, no_compare
  mt.__concat = function() T.fail("a traced value cannot be concatenated into a string", T.user_where()) end
  mt.__call = function() T.fail("a traced value is not a function", T.user_where()) end
  mt.__len = function() T.fail("a traced value has no length", T.user_where()) end
end

Sym.__index = function(s, key)
  local m = Methods[key]
  if m then return m end
  T.fail("a traced value has no field '" .. tostring(key) .. "'" ..
    (getmetatable(key) == Sym and " (only array parameters can be indexed)" or ""), T.user_where())
end
Sym.__tostring = function(s) return "<traced " .. graph.nodes[s.id].op .. " #" .. s.id .. ">" end

Param.__index = function(p, key)
  local m = Methods[key]
  if m and type(key) == "string" then return m end
  return T.param_index(p, key)
end
Param.__tostring = function(p) return "<parameter " .. p.name .. ">" end

-- A categorical value compared with a label: x:eq("retired").
local function label_operand(x, y)
  if type(y) ~= "string" then return y end
  local n = getmetatable(x) == Sym and graph.nodes[x.id]
  local cat = n and n.cat
  if not cat then T.fail("cannot compare with the label '" .. y .. "': the value is not categorical", T.user_where()) end
  local code = cat.codes[y]
  if not code then
    T.fail("'" .. y .. "' is not a category of " .. (cat.name or "this categorical") ..
      " (categories: " .. table.concat(cat.labels, ", ") .. ")", T.user_where())
  end
  return code
end

for _, op in ipairs({ "lt", "le", "gt", "ge", "eq", "ne" }) do
  Methods[op] = function(x, y) return T.op(op, x, label_operand(x, y)) end
end
Methods.and_ = function(x, y) return T.op("and", x, y) end
Methods.or_ = function(x, y) return T.op("or", x, y) end
Methods.not_ = function(x) return T.op("not", x) end

T.Sym, T.Param = Sym, Param
return T
