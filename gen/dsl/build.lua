-- lcm/build.lua - from the model a file returned to the model as data.
--
-- Steps: validate the model's structure (ages, regimes, grids, names),
-- evaluate each regime's `active(age)`, trace every regime into one
-- expression graph (functions wired by parameter name, constraints, the
-- regime transition, the next states of every reachable target regime, the
-- aggregator H), collect the parameter slots, and return it all as plain
-- tables (B.model; gen/lua_model.c reads them into the IR, and C alone
-- writes the manifest, ir/manifest.c; grammar in docs/internals.md).

local T = require("lcm.trace")
local lcm = require("lcm")
local Reach = require("lcm.reach")
local EgmPlan = require("lcm.egm_plan")
local layout = require("lcm.layout") -- from C (gen/lua_host.c): the limits and splay of ir/layout.h, taste-shock choices

local B = {}

-- age, period and E_next_V are read by functions; regime, value and
-- subject_id are columns of a simulated panel
local RESERVED = { age = true, period = true, E_next_V = true, regime = true, value = true, subject_id = true }
-- The operations of one regime's functions, at most: a loop in a model
-- function unrolls into the kernel, and the C compiler's time grows faster
-- than the code (gcc -O3 on this 2-core VM: 1,000 operations 5 s, 3,000
-- 22 s, 20,000 more than 9 minutes); Mahler & Yum make 141.
local MAX_NODES = 5000

local function fail_at(where, msg) error(where .. ": " .. msg, 0) end

local function sorted_keys(t, what, where)
  local keys = {}
  for k in pairs(t) do
    if type(k) ~= "string" then fail_at(where, what .. ": keys must be names, found " .. tostring(k)) end
    keys[#keys + 1] = k
  end
  table.sort(keys)
  return keys
end

-- The first of names (sorted, so that the hint does not depend on table
-- order) within two edits of name, as lcm's own "did you mean" hints
-- (runtime/core/params.c), or nil.
local function near_name(name, names)
  if #name < 4 then return nil end
  for _, other in ipairs(names) do
    if other ~= name and layout.edit_distance(name, other) <= 2 then return other end
  end
  return nil
end

local function fn_where(fn)
  if lcm._is_by_age(fn) then return fn.where end
  local info = debug.getinfo(fn, "S")
  if info.source:sub(1, 5) == "=lcm/" then return "(built in)" end
  local src = info.source:sub(1, 1) == "@" and info.source:sub(2) or info.short_src
  return src .. ":" .. info.linedefined
end

-- lcm.by_age where it has no meaning: a clear refusal naming the field.
local function not_by_age(x, ctx)
  if lcm._is_by_age(x) then
    fail_at(x.where, ctx .. ": lcm.by_age is for a state's grid, a regime function or a constraint; here " ..
      "read age or period instead (e.g. lcm.where(age:ge(65), a, b))")
  end
end

---------------------------------------------------------------------------
-- regimes: variables, functions, activity
---------------------------------------------------------------------------

-- Whether regime R is active at each period (spec.active of the age).
local function activity(R, spec, M)
  local active, name = {}, R.name
  local act = spec.active
  not_by_age(act, "regime '" .. name .. "': active")
  if act ~= nil and type(act) ~= "function" then
    fail_at(R.where, "regime '" .. name .. "': active must be a function of age")
  end
  -- active is plain Lua, called once per age with the age as a number: it
  -- decides the regime's periods, so no state or action can enter it
  if act and debug.getinfo(act, "u").nparams > 1 then
    fail_at(fn_where(act), "regime '" .. name .. "': active takes the age alone (function(age) ... end): " ..
      "it decides at which ages the regime exists, so '" .. debug.getlocal(act, 2) .. "' cannot enter it " ..
      "(a choice between regimes that depends on states goes in transition)")
  end
  for t, age in ipairs(M.ages) do
    local a = true
    if act then
      local ok, res = pcall(act, age)
      if not ok then
        local msg = type(res) == "string" and res or tostring(res)
        -- age:lt(65), the form of every other function, on a plain number
        local hint = msg:find("attempt to index a number value", 1, true) and
          ": the age comes as a plain number, so write age < 65, not age:lt(65)" or ""
        error(msg .. " (in regime '" .. name .. "', active(" .. age .. ")" .. hint .. ")", 0)
      end
      if type(res) ~= "boolean" then
        fail_at(fn_where(act), "regime '" .. name .. "': active(" .. age .. ") returned " .. tostring(res) ..
          ", expected true or false")
      end
      a = res
    end
    active[t] = a
  end
  return active
end

-- Calls an lcm.by_age marker's build(age) at each period at which the
-- regime is active (every period when it never is); returns the results by
-- period, nil at inactive periods.
local function build_by_age(marker, R, M, what)
  local out, any = {}, false
  for t = 1, #M.ages do any = any or R.active[t] end
  for t, age in ipairs(M.ages) do
    if R.active[t] or not any then
      local ok, res = pcall(marker.build, age)
      if not ok then
        res = type(res) == "string" and res or tostring(res)
        -- a constructor's error raised here has no line of its own: the builder's
        if res:sub(1, 3) == "?: " then res = marker.where .. res:sub(2) end
        error(res .. " (in regime '" .. R.name .. "', " .. what .. ", lcm.by_age at age " .. lcm._num(age) .. ")", 0)
      end
      out[t] = res
    end
  end
  return out
end

-- The kinds of grid a state's grid may take at each age: fixed continuous
-- grids (a process has one law; run-time points are one parameter).
local AGE_GRID_KINDS = { lin = true, log = true, irregular = true, pwlin = true, pwlog = true }

-- A state's grid given as lcm.by_age(function(age) return grid end): one
-- grid per period with the same number of points (the layout of V does not
-- change with age), inactive periods taking the nearest active period's.
-- A builder that returns the same grid at every age is that grid.
local function age_grid(v, R, M)
  local marker = v.grid
  local what = "grid of state '" .. v.name .. "'"
  local grids = build_by_age(marker, R, M, what)
  local first, same
  for t = 1, #M.ages do
    local g = grids[t]
    if g ~= nil or R.active[t] then
      if not lcm._is_grid(g) then
        fail_at(marker.where, "regime '" .. R.name .. "', " .. what .. " at age " .. lcm._num(M.ages[t]) ..
          ": lcm.by_age's function returned " .. (g == nil and "nothing" or "a " .. type(g)) .. ", not a grid")
      end
      if first == nil then first, same = g, true end
      same = same and g == first
    end
  end
  if same then return first end
  first = nil
  for t = 1, #M.ages do
    local g = grids[t]
    if g ~= nil then
      local at = "regime '" .. R.name .. "', " .. what .. " at age " .. lcm._num(M.ages[t])
      if not AGE_GRID_KINDS[g.kind] or g.runtime then
        fail_at(marker.where, at .. ": a grid that varies with age must be a continuous grid fixed in the model " ..
          "(linspace, logspace, piecewise or irregular with its points), not " ..
          (g.runtime and "one with points given at run time" or g.kind == "process" and "a shock process" or
          "a " .. g.kind .. " grid"))
      end
      if first == nil then
        first = g
      elseif g.n ~= first.n then
        fail_at(marker.where, at .. " has " .. g.n .. " points and " .. first.n .. " at an earlier age; " ..
          "the grid may move with age but keeps its number of points")
      elseif g.batch_size ~= first.batch_size then
        fail_at(marker.where, at .. ": batch_size " .. g.batch_size .. " differs from " .. first.batch_size ..
          " at an earlier age")
      end
    end
  end
  -- an inactive period holds the next active period's grid (or the last one)
  local periods, fill = {}, nil
  for t = #M.ages, 1, -1 do
    fill = grids[t] or fill
    periods[t] = fill
  end
  for t = 1, #M.ages do periods[t] = periods[t] or periods[t - 1] end
  return setmetatable({ kind = "by_age", n = first.n, periods = periods, batch_size = first.batch_size,
    where = marker.where }, getmetatable(first))
end

-- states/actions are a map name -> grid (ordered by name) or a list of
-- {name, grid} pairs (ordered as written); discrete axes come first.
local function normalize_vars(tbl, what, R, M)
  if tbl == nil then return {} end
  local ctx = "regime '" .. R.name .. "': " .. what
  if type(tbl) ~= "table" then fail_at(R.where, ctx .. " must be a table of grids") end
  local list = {}
  if #tbl > 0 then
    for k in pairs(tbl) do
      if math.type(k) ~= "integer" then fail_at(R.where, ctx .. ": mix of a list and named entries") end
    end
    for i, e in ipairs(tbl) do
      if type(e) ~= "table" or getmetatable(e) ~= nil or type(e[1]) ~= "string" or e[2] == nil then
        fail_at(R.where, ctx .. ": entry " .. i .. " must be {name, grid}")
      end
      list[#list + 1] = { name = e[1], grid = e[2] }
    end
  else
    for _, k in ipairs(sorted_keys(tbl, ctx, R.where)) do list[#list + 1] = { name = k, grid = tbl[k] } end
  end
  local seen, out = {}, {}
  for _, v in ipairs(list) do
    if not lcm._is_identifier(v.name) then fail_at(R.where, ctx .. ": '" .. v.name .. "' is not a name") end
    if RESERVED[v.name] then fail_at(R.where, ctx .. ": '" .. v.name .. "' is a reserved name") end
    if seen[v.name] then fail_at(R.where, ctx .. ": '" .. v.name .. "' appears twice") end
    seen[v.name] = true
    if lcm._is_by_age(v.grid) and what ~= "states" then
      fail_at(v.grid.where, ctx .. ": '" .. v.name .. "' is lcm.by_age(...); only a state's grid can vary with age")
    end
    if lcm._is_by_age(v.grid) then
      v.grid = age_grid(v, R, M)
    elseif not lcm._is_grid(v.grid) then
      fail_at(R.where, ctx .. ": '" .. v.name .. "' must be a grid (lcm.linspace{...}, lcm.discrete(...), ...)")
    end
  end
  for _, v in ipairs(list) do if v.grid.kind == "discrete" then out[#out + 1] = v end end
  for _, v in ipairs(list) do if v.grid.kind ~= "discrete" then out[#out + 1] = v end end
  return out
end

local function function_table(tbl, what, R)
  local ctx = "regime '" .. R.name .. "': " .. what
  if tbl == nil then return {} end
  if type(tbl) ~= "table" then fail_at(R.where, ctx .. " must be a table of functions") end
  for _, k in ipairs(sorted_keys(tbl, ctx, R.where)) do
    if not lcm._is_identifier(k) then fail_at(R.where, ctx .. ": '" .. k .. "' is not a name") end
    if type(tbl[k]) ~= "function" and not lcm._is_by_age(tbl[k]) then
      fail_at(R.where, ctx .. ": '" .. k .. "' must be a function (or lcm.by_age(...) of one)")
    end
    if RESERVED[k] then fail_at(R.where, ctx .. ": '" .. k .. "' is a reserved name") end
    if k == "all" then fail_at(R.where, ctx .. ": 'all' is a reserved name (--targets all means every function)") end
    if k:sub(1, 5) == "next_" then
      fail_at(fn_where(tbl[k]), ctx .. ": '" .. k .. "': names starting with next_ are reserved for transitions")
    end
  end
  return tbl
end

-- taste_shocks = lcm.ev1{...}: over the combinations of the discrete actions
-- (which normalize_vars puts first), at most IR_MAX_TASTE_CHOICES of them.
local function prepare_taste(name, ts, R)
  if ts == nil then return nil end
  local ctx = "regime '" .. name .. "', taste_shocks"
  if not lcm._is_taste_shocks(ts) then fail_at(R.where, ctx .. ": must be lcm.ev1{ scale = function(...) ... end }") end
  if R.functions.taste_shocks then
    fail_at(R.where, "regime '" .. name .. "': the function 'taste_shocks' has the name of the taste-shock scale " ..
      "(a level of the parameters); rename the function")
  end
  local choices = 1
  for _, v in ipairs(R.actions) do
    if v.grid.kind == "discrete" then choices = choices * v.grid.n end
  end
  if R.actions[1] == nil or R.actions[1].grid.kind ~= "discrete" then
    fail_at(ts.where, ctx .. ": the regime has no discrete action to put taste shocks on")
  end
  if choices > layout.max_taste_choices then
    fail_at(ts.where, ctx .. ": " .. choices .. " combinations of discrete actions, more than " ..
      layout.max_taste_choices)
  end
  return ts
end

local function prepare_regime(name, spec, M)
  local R = { name = name, spec = spec, where = spec.where ~= "?" and spec.where or M.file }
  if spec.terminal ~= nil and type(spec.terminal) ~= "boolean" then
    fail_at(R.where, "regime '" .. name .. "': terminal must be true or false")
  end
  R.terminal = spec.terminal == true
  if R.terminal then
    if spec.transition ~= nil then fail_at(R.where, "regime '" .. name .. "' is terminal and cannot have a transition") end
    if spec.state_transitions ~= nil then
      fail_at(R.where, "regime '" .. name .. "' is terminal and cannot have state_transitions")
    end
  else
    local tr = spec.transition
    not_by_age(tr, "regime '" .. name .. "': transition")
    if tr == nil then
      fail_at(R.where, "regime '" .. name .. "' needs a transition (a function returning the next regime, " ..
        "or lcm.markov(...) returning probabilities), or terminal = true")
    end
    if type(tr) ~= "function" and not lcm._is_markov(tr) then
      fail_at(R.where, "regime '" .. name .. "': transition must be a function or lcm.markov(function)")
    end
    if spec.state_transitions ~= nil and type(spec.state_transitions) ~= "table" then
      fail_at(R.where, "regime '" .. name .. "': state_transitions must be a table")
    end
  end
  R.active = activity(R, spec, M)
  R.states = normalize_vars(spec.states, "states", R, M)
  R.actions = normalize_vars(spec.actions, "actions", R, M)
  for _, v in ipairs(R.actions) do
    if v.grid.kind == "process" then
      fail_at(v.grid.where, "regime '" .. name .. "': action '" .. v.name .. "' is a shock process; processes are states")
    end
    if v.grid.distributed then
      fail_at(v.grid.where, "regime '" .. name .. "': action '" .. v.name .. "' has distributed = true; " ..
        "sharding splits the axes of V, which are states: put distributed = true on a state")
    end
  end
  for _, what in ipairs({ "states", "actions" }) do
    local size = 1.0
    for _, v in ipairs(R[what]) do size = size * v.grid.n end
    if size > 2 ^ 53 then
      fail_at(R.where, "regime '" .. name .. "' has " .. string.format("%.3g", size) .. " combinations of " ..
        what .. ": more than lcm can index (2^53)")
    end
  end
  R.functions = function_table(spec.functions, "functions", R)
  R.constraints = function_table(spec.constraints, "constraints", R)
  R.state_index, R.action_index = {}, {}
  for i, v in ipairs(R.states) do R.state_index[v.name] = i end
  for i, v in ipairs(R.actions) do
    if R.state_index[v.name] then fail_at(R.where, "regime '" .. name .. "': '" .. v.name .. "' is both a state and an action") end
    R.action_index[v.name] = i
  end
  for fname in pairs(R.functions) do
    if R.state_index[fname] or R.action_index[fname] then
      fail_at(R.where, "regime '" .. name .. "': function '" .. fname .. "' has the name of a state or action")
    end
    if R.constraints[fname] then
      fail_at(R.where, "regime '" .. name .. "': '" .. fname .. "' is both a function and a constraint")
    end
  end
  for cname in pairs(R.constraints) do
    if R.state_index[cname] or R.action_index[cname] then
      fail_at(R.where, "regime '" .. name .. "': constraint '" .. cname .. "' has the name of a state or action")
    end
  end
  if not R.functions.utility then fail_at(R.where, "regime '" .. name .. "' has no 'utility' function") end
  R.taste = prepare_taste(name, spec.taste_shocks, R)
  if spec.solver ~= nil and not lcm._is_solver(spec.solver) then
    fail_at(R.where, "regime '" .. name .. "': solver must be lcm.egm{ savings = ... } (or left out: grid search)")
  end
  if R.terminal and R.functions.H then
    fail_at(R.where, "regime '" .. name .. "' is terminal: it has no continuation, so no aggregator H")
  end
  -- Epstein-Zin: the risk aversion of the certainty equivalent E_next_V becomes
  local ra = spec.risk_aversion
  not_by_age(ra, "regime '" .. name .. "': risk_aversion")
  if ra ~= nil then
    if type(ra) ~= "function" then
      fail_at(R.where, "regime '" .. name .. "': risk_aversion must be a function returning the risk aversion " ..
        "(e.g. function(gamma) return gamma end)")
    end
    if R.terminal then
      fail_at(fn_where(ra), "regime '" .. name .. "' is terminal: it has no continuation, so no risk_aversion")
    end
    if R.functions.risk_aversion then
      fail_at(fn_where(R.functions.risk_aversion), "regime '" .. name .. "': 'risk_aversion' is both a function " ..
        "and the regime's risk_aversion field; rename the function")
    end
  end
  return R
end

---------------------------------------------------------------------------
-- parameters: slots and fixed values
---------------------------------------------------------------------------

-- Looks a name up in fixed_params at function, regime and model level; the
-- same name at two levels is ambiguous.  Returns value (or nil).
-- Names that are a level of the parameter tree inside a regime: functions,
-- constraints, transitions, H, and grids with parameters of their own.
function B.is_level(R, name)
  return R.functions[name] or R.constraints[name] or name:sub(1, 5) == "next_" or name == "H" or
    (name == "risk_aversion" and R.spec.risk_aversion ~= nil) or (name == "taste_shocks" and R.taste) or
    R.state_index[name] or R.action_index[name]
end

-- Where a fixed value came from, for messages: the model's fixed_params or
-- --fix on the command line.
local function fixed_origin(M, path)
  return M.fix_given[path] and "--fix " .. path or "fixed_params: '" .. path .. "'"
end

-- The model's fixed_params with the --fix values (lcm._fixes) added.  The
-- model's own table is not changed: the levels a --fix path passes through
-- are copied.  A path fixed by both is an error, as is a value that is not a
-- finite number.
local function merge_fixes(model_fp, fixes, regimes, where)
  if #fixes == 0 then return model_fp, {} end
  if model_fp ~= nil and (type(model_fp) ~= "table" or getmetatable(model_fp) ~= nil) then
    fail_at(where, "fixed_params must be a table")
  end
  local function copy(t)
    local c = {}
    for k, v in pairs(t) do c[k] = v end
    return c
  end
  local merged, given, copied = copy(model_fp or {}), {}, {}
  for _, fix in ipairs(fixes) do
    local path, text = fix[1], fix[2]
    local value = tonumber(text)
    if value == nil or not lcm._finite(value) then
      fail_at(where, "--fix " .. path .. "=" .. text .. ": the value must be a finite number")
    end
    local keys, t, at = {}, merged, ""
    for key in path:gmatch("[^.]+") do keys[#keys + 1] = key end
    if #keys == 1 and regimes[keys[1]] ~= nil then
      fail_at(where, "--fix " .. path .. ": '" .. path .. "' is a regime, not a parameter")
    elseif #keys > 1 and regimes[keys[1]] == nil then
      fail_at(where, "--fix " .. path .. ": '" .. keys[1] .. "' is not a regime (a path is NAME, REGIME.NAME or " ..
        "REGIME.FUNCTION.NAME; an array is fixed whole, in fixed_params)")
    end
    for i = 1, #keys - 1 do
      at = at .. (i > 1 and "." or "") .. keys[i]
      local child = t[keys[i]]
      if child == nil then
        child = {}
        copied[child] = true
      elseif type(child) ~= "table" or getmetatable(child) ~= nil then
        fail_at(where, "--fix " .. path .. ": fixed_params gives '" .. at .. "' a value already")
      elseif not copied[child] then
        child = copy(child)
        copied[child] = true
      end
      t[keys[i]] = child
      t = child
    end
    if t[keys[#keys]] ~= nil then
      fail_at(where, "--fix " .. path .. ": '" .. path .. "' is fixed in the model already (fixed_params)")
    end
    t[keys[#keys]] = value
    given[path] = true
  end
  return merged, given
end

local function fixed_lookup(M, R, fname, pname, where)
  local fp = M.fixed_params
  if not fp then return nil end
  local found = {}
  local rt = fp[R.name]
  if type(rt) == "table" and getmetatable(rt) == nil and M.regime_by_name[R.name] then
    local ft = rt[fname]
    if type(ft) == "table" and B.is_level(R, fname) and ft[pname] ~= nil then
      found[#found + 1] = { R.name .. "." .. fname .. "." .. pname, ft[pname] }
    end
    if rt[pname] ~= nil and not R.functions[pname] then found[#found + 1] = { R.name .. "." .. pname, rt[pname] } end
  end
  if fp[pname] ~= nil and not M.regime_by_name[pname] then found[#found + 1] = { pname, fp[pname] } end
  if #found > 1 then
    fail_at(where, "fixed_params: '" .. pname .. "' of regime '" .. R.name .. "', function '" .. fname ..
      "' is given at two levels (" .. fixed_origin(M, found[1][1]) .. " and " .. fixed_origin(M, found[2][1]) .. ")")
  end
  if #found == 0 then return nil end
  local path, value = found[1][1], found[1][2]
  if type(value) == "number" and not lcm._finite(value) then
    fail_at(M.where, fixed_origin(M, path) .. " is " .. lcm._num(value) .. ", not a finite number")
  end
  M.fixed_used[path] = true
  return value
end

local function check_fixed_used(M)
  local fp = M.fixed_params
  if not fp then return end
  if type(fp) ~= "table" then fail_at(M.where, "fixed_params must be a table") end
  local function check(path)
    if not M.fixed_used[path] then
      fail_at(M.where, fixed_origin(M, path) .. " is not a parameter of any model function")
    end
  end
  for _, k in ipairs(sorted_keys(fp, "fixed_params", M.where)) do
    local R = M.regime_by_name[k]
    if R and type(fp[k]) ~= "table" then fail_at(M.where, "fixed_params." .. k .. " must be a table (it names a regime)") end
    if R then
      for _, k2 in ipairs(sorted_keys(fp[k], "fixed_params." .. k, M.where)) do
        local v = fp[k][k2]
        if type(v) == "table" and B.is_level(R, k2) then
          for _, k3 in ipairs(sorted_keys(v, "fixed_params." .. k .. "." .. k2, M.where)) do
            check(k .. "." .. k2 .. "." .. k3)
          end
        else
          check(k .. "." .. k2)
        end
      end
    else
      check(k)
    end
  end
end

-- The labels of dimension d of a slot: those of the categorical indexing it,
-- or, for the last dimension a Markov row adds, of the next regime
-- (next_regime) or of the next state's categories (next_<state>), as the
-- runtime reads params files; nil for period.
local function dim_labels(M, slot, d)
  local cat = slot.cats[d]
  if cat then return cat.labels end
  local name = slot.dimnames[d]
  if name == "next_regime" then return M.regime_names end
  local state = name:match("^next_(.+)$")
  for _, R in ipairs(state and M.regimes or {}) do
    local i = R.state_index[state]
    local g = i and R.states[i].grid
    if g and g.kind == "discrete" and g.n == slot.dims[d] then return g.cat.labels end
  end
  return nil
end

-- Flattens a fixed array value row-major over the slot's dimensions.  Each
-- level is a list (first element = code 0) or, for categorical dimensions,
-- a table keyed by label.
local function flatten(value, slot, M)
  local where = M.where
  local out = {}
  local function walk(v, d, path)
    if d > slot.ndims then
      if type(v) ~= "number" then fail_at(where, "fixed parameter '" .. slot.name .. "'" .. path .. " is not a number") end
      if not lcm._finite(v) then
        fail_at(where, "fixed parameter '" .. slot.name .. "'" .. path .. " is " .. lcm._num(v) .. ", not a finite number")
      end
      out[#out + 1] = v * 1.0 -- a float, -0.0 kept
      return
    end
    if type(v) ~= "table" then
      fail_at(where, "fixed parameter '" .. slot.name .. "'" .. path .. " must be an array of " .. slot.dims[d] ..
        " values (indexed by " .. slot.dimnames[d] .. ")")
    end
    local labels = dim_labels(M, slot, d)
    if #v == 0 and labels then
      local known = {}
      for _, label in ipairs(labels) do
        if v[label] == nil then fail_at(where, "fixed parameter '" .. slot.name .. "'" .. path .. " has no entry '" .. label .. "'") end
        known[label] = true
        walk(v[label], d + 1, path .. "." .. label)
      end
      for k in pairs(v) do
        if not known[k] then
          fail_at(where, "fixed parameter '" .. slot.name .. "'" .. path .. " has an entry '" .. tostring(k) ..
            "', which is not one of " .. table.concat(labels, ", ") .. " (" .. slot.dimnames[d] .. ")")
        end
      end
    else
      if #v ~= slot.dims[d] then
        fail_at(where, "fixed parameter '" .. slot.name .. "'" .. path .. " has " .. #v .. " entries, " ..
          slot.dimnames[d] .. " has " .. slot.dims[d])
      end
      for j = 1, #v do walk(v[j], d + 1, path .. "[" .. j .. "]") end
    end
  end
  walk(value, 1, "")
  return out
end

-- An argument that names nothing becomes a parameter; when it is a near
-- miss of a state, action or function (layout.near_miss: base_near_miss,
-- whose rule the missing-parameter error shares), it is most likely a typo.
local function warn_near_miss(R, fname, pname, where)
  local candidates = {}
  for _, v in ipairs(R.states) do candidates[#candidates + 1] = { v.name, "state" } end
  for _, v in ipairs(R.actions) do candidates[#candidates + 1] = { v.name, "action" } end
  for n in pairs(R.functions) do candidates[#candidates + 1] = { n, "function" } end
  table.sort(candidates, function(x, y) return x[1] < y[1] end)
  for _, c in ipairs(candidates) do
    if layout.near_miss(pname, c[1]) then
      T.warn(string.format("%s: regime '%s', function '%s': '%s' is not a state, action or function, so it " ..
        "is a parameter; did you mean the %s '%s'?", where, R.name, fname, pname, c[2], c[1]))
      return
    end
  end
end

local function slot_function(M, R, fname, pname, fixed, where)
  return function(indices)
    local key = R.name .. "\0" .. fname .. "\0" .. pname
    local slot = M.slot_index[key]
    if not slot then
      slot = { id = #M.slots, regime = R.name, func = fname, name = pname, ndims = #indices,
        dims = {}, dimnames = {}, cats = {}, fixed = fixed, where = where }
      M.slots[#M.slots + 1] = slot
      M.slot_index[key] = slot
    end
    if #indices ~= slot.ndims then
      T.fail("parameter '" .. pname .. "' is used with " .. #indices .. " indices here and " .. slot.ndims ..
        " elsewhere in the same function", T.user_where())
    end
    for i, ix in ipairs(indices) do
      if slot.dims[i] == nil then
        slot.dims[i], slot.dimnames[i], slot.cats[i] = ix.card, ix.name, ix.cat
      elseif slot.dims[i] ~= ix.card then
        T.fail("dimension " .. i .. " of parameter '" .. pname .. "' has " .. ix.card .. " entries here (" ..
          ix.name .. ") and " .. slot.dims[i] .. " elsewhere (" .. slot.dimnames[i] .. ")", T.user_where())
      end
    end
    return slot.id
  end
end

---------------------------------------------------------------------------
-- tracing one regime
---------------------------------------------------------------------------

local function default_H(utility, E_next_V, discount_factor)
  return utility + discount_factor * E_next_V
end

local trace_fn

local function cat_of(grid) return grid.kind == "discrete" and grid.cat or nil end

local function resolve(ctx, name, fname, where)
  local R, M = ctx.R, ctx.M
  if name == "age" then return T.var("age") end
  if name == "period" then return T.var("period", nil, { card = #M.ages, name = "period" }) end
  if name == "E_next_V" then
    if R.terminal then fail_at(where, "regime '" .. R.name .. "' is terminal: E_next_V does not exist there") end
    if fname ~= "H" then
      fail_at(where, "regime '" .. R.name .. "', function '" .. fname .. "': E_next_V is only available to the aggregator H")
    end
    return T.var("enext")
  end
  local si = R.state_index[name]
  if si then
    local g = R.states[si].grid
    return T.var("state", si - 1, { card = g.kind == "discrete" and g.n or nil, cat = cat_of(g), name = name })
  end
  local ai = R.action_index[name]
  if ai then
    local g = R.actions[ai].grid
    return T.var("action", ai - 1, { card = g.kind == "discrete" and g.n or nil, cat = cat_of(g), name = name })
  end
  if R.functions[name] then return ctx.value(name, R.functions[name]) end
  if name == "H" and not R.terminal then return ctx.value("H", default_H) end
  if R.constraints[name] then
    fail_at(where, "regime '" .. R.name .. "', function '" .. fname .. "': '" .. name ..
      "' is a constraint, not a value; compute it in a function and use that")
  end
  if M.regime_by_name[name] then
    fail_at(where, "regime '" .. R.name .. "', function '" .. fname .. "': argument '" .. name ..
      "' has the name of a regime; parameters and regimes need different names")
  end
  if ctx.handoff and M.any_state[name] then
    -- a state of another regime that R lacks would silently become a parameter
    fail_at(where, "regime '" .. R.name .. "' can move to regime '" .. ctx.handoff.target .. "' but cannot supply " ..
      "its state '" .. ctx.handoff.state .. "': function '" .. fname .. "' reads the state '" .. name .. "', which '" ..
      R.name .. "' does not have; compute the next value from what '" .. R.name .. "' has (a parameter needs " ..
      "another name)")
  end
  local fixed = fixed_lookup(M, R, fname, name, where)
  if type(fixed) == "number" then
    -- baked into the code as a constant; the slot only documents it
    slot_function(M, R, fname, name, fixed, where)({})
    return fixed * 1.0 -- a float (+ 0.0 would turn -0.0 into 0.0)
  end
  if fixed ~= nil and type(fixed) ~= "table" then
    fail_at(M.where, "fixed_params: '" .. name .. "' must be a number or an array of numbers")
  end
  if fixed == nil then warn_near_miss(R, fname, name, where) end
  return T.new_param(name, slot_function(M, R, fname, name, fixed, where))
end

-- Normalizes a function result to a scalar value (number, boolean or Sym).
local function as_value(res, R, fname, where)
  if T.is_param(res) then return T.sym(T.param_node(res)) end
  local t = type(res)
  if T.is_sym(res) or t == "number" or t == "boolean" then return res end
  if res == nil then fail_at(where, "regime '" .. R.name .. "', function '" .. fname .. "' returns nothing") end
  fail_at(where, "regime '" .. R.name .. "', function '" .. fname .. "' returns a " .. t ..
    (t == "table" and "; only lcm.markov transitions return tables of probabilities" or ""))
end

-- Lua's == between a traced value and a number is false without asking the
-- tracer, so `if x == 1` silently takes one branch.  Warn when the source of
-- a model function contains == or ~= (outside strings and comments).
local source_lines = {}
local function warn_equality(R, fname, fn)
  local info = debug.getinfo(fn, "S")
  if info.source:sub(1, 1) ~= "@" then return end
  local path = info.source:sub(2)
  local lines = source_lines[path]
  if not lines then
    lines = {}
    local f = io.open(path, "r")
    if f then
      for l in f:lines() do lines[#lines + 1] = l end
      f:close()
    end
    source_lines[path] = lines
  end
  for n = info.linedefined, info.lastlinedefined do
    local code = (lines[n] or ""):gsub('"[^"]*"', '""'):gsub("'[^']*'", "''"):gsub("%-%-.*$", "")
    -- the first line from the function's own keyword on: code before it (an
    -- lcm.by_age builder's `if age == 65 then return function ...`) is not
    -- the function's
    if n == info.linedefined then
      local last
      for at in code:gmatch("()function") do last = at end
      code = last and code:sub(last) or code
    end
    local op = code:match("[=~]=")
    if op then
      T.warn(string.format("%s:%d: regime '%s', function '%s': '%s' cannot compare traced values (states, " ..
        "actions, functions, parameters): against a number it is always %s. Use x:eq(y) / x:ne(y); ignore " ..
        "this if both sides are plain Lua values", path, n, R.name, fname, op, op == "==" and "false" or "true"))
      return
    end
  end
end

-- Traces one Lua function: its arguments resolved by name, then called.
local function call_traced(ctx, fname, fn)
  local where = fn_where(fn)
  warn_equality(ctx.R, fname, fn)
  local info = debug.getinfo(fn, "u")
  if info.isvararg then
    fail_at(where, "regime '" .. ctx.R.name .. "', function '" .. fname .. "' takes '...'; " ..
      "model functions must name their arguments")
  end
  local args, names = {}, {}
  for i = 1, info.nparams do
    names[i] = debug.getlocal(fn, i)
    args[i] = resolve(ctx, names[i], fname, where)
  end
  local res, frame = T.call(fname, fn, args, info.nparams, where)
  T.check_call(frame, res, args, names, info.nparams, where)
  return res
end

-- A function given as lcm.by_age(build): the function build(age) returns
-- at each active period, traced once per distinct function, joined into
-- one value that selects by period (lcm.where on period; equal values
-- merge, so a rule that changes once costs one comparison).
local function call_by_age(ctx, fname, marker)
  local R, M = ctx.R, ctx.M
  local fns = build_by_age(marker, R, M, "function '" .. fname .. "'")
  local traced, value = {}, {}
  for t = 1, #M.ages do
    local f = fns[t]
    if f ~= nil or R.active[t] then
      if type(f) ~= "function" then
        fail_at(marker.where, "regime '" .. R.name .. "', function '" .. fname .. "' at age " ..
          lcm._num(M.ages[t]) .. ": lcm.by_age's function returned " .. (f == nil and "nothing" or "a " .. type(f)) ..
          ", not a function")
      end
      if traced[f] == nil then traced[f] = { as_value(call_traced(ctx, fname, f), R, fname, fn_where(f)) } end
      value[t] = traced[f][1]
    end
  end
  local kind
  for t = 1, #M.ages do
    if value[t] ~= nil then
      local k = T.type_of(value[t]) == "bool" and "condition" or "number"
      if kind and k ~= kind then
        fail_at(marker.where, "regime '" .. R.name .. "', function '" .. fname .. "' returns a " .. kind ..
          " at earlier ages and a " .. k .. " at age " .. lcm._num(M.ages[t]) .. "; lcm.by_age's functions must agree")
      end
      kind = k
    end
  end
  -- from the last active period backwards: before period t, the value there
  local period = T.var("period", nil, { card = #M.ages, name = "period" })
  local res, run -- run: the value from period t on, up to its next change
  for t = #M.ages, 1, -1 do
    local v = value[t]
    if v ~= nil then
      if res == nil then
        res = v
      elseif T.to_id(v, fname) ~= T.to_id(run, fname) then
        res = T.op("where", T.op("lt", period, t), v, res) -- periods 0 .. t-1 (0-based) take v
      end
      run = v
    end
  end
  return res
end

function trace_fn(ctx, fname, fn)
  local memo = ctx.memo[fname]
  if memo then return memo.res end
  if ctx.busy[fname] then
    local cycle = {}
    for i = ctx.busy[fname], #ctx.stack do cycle[#cycle + 1] = ctx.stack[i] end
    cycle[#cycle + 1] = fname
    fail_at(fn_where(fn), "regime '" .. ctx.R.name .. "': functions depend on each other in a cycle: " ..
      table.concat(cycle, " -> "))
  end
  ctx.stack[#ctx.stack + 1] = fname
  ctx.busy[fname] = #ctx.stack
  local res
  if lcm._is_by_age(fn) then res = call_by_age(ctx, fname, fn) else res = call_traced(ctx, fname, fn) end
  ctx.busy[fname] = nil
  ctx.stack[#ctx.stack] = nil
  ctx.memo[fname] = { res = res }
  return res
end

-- Probabilities returned by a Markov function, one per label (a table keyed
-- by label, a list in code order, or a row of an array parameter).
local function markov_probs(res, labels, what, R, where, dimname)
  local n = #labels
  local probs = {}
  if T.is_param(res) then
    for j = 0, n - 1 do probs[j + 1] = T.sym(T.param_node(T.param_index_const(res, j, n, dimname))) end
    return probs
  end
  if type(res) ~= "table" or getmetatable(res) ~= nil then
    fail_at(where, "regime '" .. R.name .. "': " .. what .. " is a Markov transition and must return a " ..
      "table of probabilities (keyed by " .. table.concat(labels, ", ") .. "), got a " .. type(res))
  end
  local code = {}
  for j, l in ipairs(labels) do code[l] = j end
  if #res > 0 then
    if #res ~= n then
      fail_at(where, "regime '" .. R.name .. "': " .. what .. " returns " .. #res ..
        " probabilities; there are " .. n .. " (" .. table.concat(labels, ", ") .. ")")
    end
    for k in pairs(res) do
      if math.type(k) ~= "integer" then
        fail_at(where, "regime '" .. R.name .. "': " .. what .. " mixes a list and labelled probabilities")
      end
    end
    for j = 1, n do probs[j] = res[j] end
  else
    for k, v in pairs(res) do
      if not code[k] then
        fail_at(where, "regime '" .. R.name .. "': " .. what .. " returns a probability for '" .. tostring(k) ..
          "', which is not one of " .. table.concat(labels, ", "))
      end
      probs[code[k]] = v
    end
    for j = 1, n do probs[j] = probs[j] or 0.0 end
  end
  for j = 1, n do
    local p = probs[j]
    if T.is_param(p) then p = T.sym(T.param_node(p)) end
    if not (type(p) == "number" or T.is_sym(p)) then
      fail_at(where, "regime '" .. R.name .. "': " .. what .. ": the probability of '" .. labels[j] ..
        "' is not a number")
    end
    if type(p) == "number" and not (p >= 0 and p <= 1) then
      fail_at(where, "regime '" .. R.name .. "': " .. what .. ": the probability of '" .. labels[j] ..
        "' is " .. lcm._num(p) .. ", not a number from 0 to 1")
    end
    probs[j] = p
  end
  return probs
end

-- The constant values a deterministic expression can take (a constant or a
-- tree of lcm.where over constants), or nil when it is not known.
local function possible_values(x)
  if type(x) == "number" then return { [x] = true } end
  if not T.is_sym(x) then return nil end
  local out = {}
  local function walk(id)
    local n = T.node(id)
    if n.op == "const" then out[n.k] = true return true end
    if n.op == "where" then return walk(n.args[2]) and walk(n.args[3]) end
    return false
  end
  return walk(x.id) and out or nil
end

local function is_zero(x)
  if type(x) == "number" then return x == 0 end
  if type(x) == "boolean" then return not x end
  local n = T.node(x.id)
  return n.op == "const" and n.k == 0
end

-- Regime probabilities: id (0-based) -> value, never-reached regimes absent;
-- and where the transition is.
local function regime_probs(ctx)
  local R, M = ctx.R, ctx.M
  local tr = R.spec.transition
  local out = {}
  if lcm._is_markov(tr) then
    local res = trace_fn(ctx, "next_regime", tr.fn)
    local probs = markov_probs(res, M.regime_names, "the regime transition", R, fn_where(tr.fn), "next_regime")
    for id = 0, #M.regimes - 1 do
      if not is_zero(probs[id + 1]) then out[id] = probs[id + 1] end
    end
    return out, fn_where(tr.fn)
  end
  local where = fn_where(tr)
  local res = as_value(trace_fn(ctx, "next_regime", tr), R, "next_regime", where)
  local pv = possible_values(res)
  if pv then
    for v in pairs(pv) do
      if v ~= math.floor(v) or v < 0 or v >= #M.regimes then
        fail_at(where, "regime '" .. R.name .. "': the transition can return " .. v ..
          ", which is not a regime id (0.." .. (#M.regimes - 1) .. "); use the regime_ids categorical")
      end
    end
  end
  for id = 0, #M.regimes - 1 do
    if pv == nil or pv[id] then
      local p = T.op("eq", res, id)
      if not is_zero(p) then out[id] = p end
    end
  end
  return out, where
end

-- The risk aversion of an Epstein-Zin regime: a number (a constant must be
-- finite; a computed one is checked during the solve, LCM_FLAG_CE).
local function risk_aversion(ctx, fn)
  local R, where = ctx.R, fn_where(fn)
  local v = ctx.value("risk_aversion", fn)
  if T.type_of(v) == "bool" then
    fail_at(where, "regime '" .. R.name .. "': risk_aversion must return a number, not a condition")
  end
  if type(v) == "number" and v - v ~= 0 then
    fail_at(where, "regime '" .. R.name .. "': risk_aversion is " .. tostring(v) .. ", not a finite number")
  end
  return v
end

-- The probability of a move in period t (1-based) where the generator
-- knows it (Reach.move_periods), else nil.
local function prob_at(M, p)
  return function(t)
    if type(p) == "number" then return p end
    return T.value_at(p.id, M.ages[t], t - 1)
  end
end

-- How the source regime R computes state `sv` of target regime `TR`.
local function next_state(ctx, TR, sv)
  local R, M = ctx.R, ctx.M
  local st = R.spec.state_transitions or {}
  local spec, fname = st[sv.name], "next_" .. sv.name
  local where = R.where
  if type(spec) == "table" and getmetatable(spec) == nil and sv.grid.kind ~= "process" then
    spec, fname = spec[TR.name], fname .. "__" .. TR.name
    if spec == nil then
      fail_at(where, "regime '" .. R.name .. "': state_transitions." .. sv.name ..
        " gives no transition for target regime '" .. TR.name .. "'")
    end
  end
  if sv.grid.kind == "process" then
    if spec ~= nil then
      fail_at(where, "regime '" .. R.name .. "': state_transitions." .. sv.name .. ": '" .. sv.name ..
        "' is a shock process (lcm." .. sv.grid.process .. "), whose transition is part of it; remove this entry")
    end
    if not sv.grid.ar1 then return { kind = "process", src = -1 } end
    local si = R.state_index[sv.name]
    local own = si and R.states[si].grid
    local same = own and own.kind == "process" and own.process == sv.grid.process and own.n == sv.grid.n and
      own.gh == sv.grid.gh
    for _, pname in ipairs(sv.grid.params) do same = same and own.fixed[pname] == sv.grid.fixed[pname] end
    if not same then
      fail_at(where, "regime '" .. R.name .. "' can move to regime '" .. TR.name .. "', whose AR(1) process '" ..
        sv.name .. "' it does not carry with the same law (process, n_points, parameters): the next value of " ..
        "an AR(1) process depends on the current one")
    end
    return { kind = "process", src = si - 1 }
  end
  if spec == nil then
    -- a transition given for a name the target regime does not have
    local unused = {}
    for _, k in ipairs(R.spec.state_transitions and sorted_keys(R.spec.state_transitions, "state_transitions", where)
      or {}) do
      if not TR.state_index[k] then unused[#unused + 1] = k end
    end
    local near = near_name(sv.name, unused)
    near = near and "; state_transitions." .. near .. " is given: is one of the two names misspelt?" or ""
    fail_at(where, "regime '" .. R.name .. "' can move to regime '" .. TR.name .. "', which has the state '" ..
      sv.name .. "', but gives no transition for it (add state_transitions." .. sv.name ..
      (sv.grid.distributed and " = lcm.fixed; a sharded state must be carried by every regime that reaches " ..
        "one carrying it)" or " = a function, lcm.markov(...) or lcm.fixed)") .. near)
  end
  local discrete = sv.grid.kind == "discrete"
  if sv.grid.distributed and spec ~= lcm.fixed then
    fail_at(where, "regime '" .. R.name .. "': state '" .. sv.name .. "' of regime '" .. TR.name ..
      "' is sharded (distributed = true), so its transition must be lcm.fixed: an axis that agents move " ..
      "along cannot be sharded")
  end
  if spec == lcm.fixed then
    local si = R.state_index[sv.name]
    if not si then
      fail_at(where, "regime '" .. R.name .. "' can move to regime '" .. TR.name .. "', which has the state '" ..
        sv.name .. "', but cannot supply it: state_transitions." .. sv.name .. " = lcm.fixed, and '" .. R.name ..
        "' has no state '" .. sv.name .. "' to keep")
    end
    local own = R.states[si].grid
    if discrete ~= (own.kind == "discrete") or (discrete and own.n ~= sv.grid.n) then
      fail_at(where, "regime '" .. R.name .. "': state '" .. sv.name .. "' is fixed but its grid differs " ..
        "from the one in regime '" .. TR.name .. "'")
    end
    return { kind = "det", value = ctx.resolve_state(sv.name) }
  end
  if lcm._is_markov(spec) then
    if not discrete then
      fail_at(spec.where, "regime '" .. R.name .. "': state '" .. sv.name .. "'" ..
        (TR.name ~= R.name and " of target regime '" .. TR.name .. "'" or "") ..
        " is continuous; Markov transitions need a discrete state")
    end
    ctx.handoff = { target = TR.name, state = sv.name }
    local res = trace_fn(ctx, fname, spec.fn)
    ctx.handoff = nil
    return { kind = "markov", probs = markov_probs(res, sv.grid.cat.labels, "transition " .. fname, R,
      fn_where(spec.fn), "next_" .. sv.name) }
  end
  if type(spec) ~= "function" then
    fail_at(where, "regime '" .. R.name .. "': state_transitions." .. sv.name ..
      " must be a function, lcm.markov(function), lcm.fixed or a table by target regime")
  end
  ctx.handoff = { target = TR.name, state = sv.name }
  local res = trace_fn(ctx, fname, spec)
  ctx.handoff = nil
  return { kind = "det", value = as_value(res, R, fname, fn_where(spec)) }
end

local function check_transition_keys(ctx)
  local R, M = ctx.R, ctx.M
  local st = R.spec.state_transitions
  if not st then return end
  for _, k in ipairs(sorted_keys(st, "regime '" .. R.name .. "': state_transitions", R.where)) do
    local proc = M.process_state[k]
    if proc then
      fail_at(R.where, "regime '" .. R.name .. "': state_transitions." .. k .. ": '" .. k .. "' is a shock process (lcm." ..
        proc .. "), whose transition is part of it; remove this entry")
    end
    if not M.any_state[k] then
      local near = near_name(k, sorted_keys(M.any_state, "states", R.where))
      fail_at(R.where, "regime '" .. R.name .. "': state_transitions." .. k ..
        ": no regime of the model has a state '" .. k .. "'" ..
        (near and " (a misspelling of the state '" .. near .. "'?)" or ""))
    end
    local v = st[k]
    not_by_age(v, "regime '" .. R.name .. "': state_transitions." .. k)
    if type(v) == "table" and getmetatable(v) == nil then
      for _, tname in ipairs(sorted_keys(v, "state_transitions." .. k, R.where)) do
        not_by_age(v[tname], "regime '" .. R.name .. "': state_transitions." .. k .. "." .. tname)
        if not M.regime_by_name[tname] then
          fail_at(R.where, "regime '" .. R.name .. "': state_transitions." .. k .. "." .. tname ..
            ": '" .. tname .. "' is not a regime")
        end
      end
    end
  end
end

-- Parameter slots of a regime's grids: the points of run-time irregular
-- grids, the parameters of processes (fixed ones baked in).
local function grid_slots(R, M)
  R.var_slots = {}
  for _, what in ipairs({ "states", "actions" }) do
    for _, v in ipairs(R[what]) do
      local g = v.grid
      if g.kind == "irregular" and g.runtime then
        local fixed = fixed_lookup(M, R, v.name, "points", g.where)
        R.var_slots[v.name] = slot_function(M, R, v.name, "points", fixed, g.where)({ { card = g.n, name = v.name } })
      elseif g.kind == "process" then
        local slots = {}
        for i, pname in ipairs(g.params) do
          local fixed = g.fixed[pname]
          if fixed == nil then fixed = fixed_lookup(M, R, v.name, pname, g.where) end
          if fixed ~= nil and type(fixed) ~= "number" then
            fail_at(g.where, "fixed_params: parameter '" .. pname .. "' of process '" .. v.name .. "' must be a number")
          end
          local bad = fixed ~= nil and lcm._process_param_problem(pname, fixed)
          if bad then
            fail_at(M.where, "fixed_params: parameter '" .. pname .. "' of process '" .. v.name .. "' " .. bad)
          end
          slots[i] = slot_function(M, R, v.name, pname, fixed, g.where)({})
        end
        R.var_slots[v.name] = slots
      end
    end
  end
end

-- The taste-shock scale: a number the kernel knows before the action loops
-- (parameters, period, age, states, functions of those), never an action.
local function taste_scale(ctx, g)
  local R, fn = ctx.R, ctx.R.taste.scale
  local v = ctx.value("taste_shocks", fn)
  local ctxt = "regime '" .. R.name .. "', taste_shocks: the scale"
  if T.type_of(v) == "bool" then
    fail_at(fn_where(fn), ctxt .. " must be a number, not a condition")
  end
  if not T.is_sym(v) then return v end
  local reads = {}
  for i = 1, v.id do
    local n = g.nodes[i]
    reads[i] = n.op == "action" and n.name or nil
    for _, a in ipairs(n.args or {}) do reads[i] = reads[i] or reads[a] end
  end
  if reads[v.id] then
    fail_at(fn_where(fn), ctxt .. " depends on the action '" .. reads[v.id] .. "'; it must be known before the " ..
      "choice (parameters, period, age, states)")
  end
  return v
end

local function trace_regime(R, M)
  grid_slots(R, M)
  local g = T.new_graph(R.name, M.srcs)
  T.set_graph(g)
  local ctx = { R = R, M = M, memo = {}, busy = {}, stack = {} }
  function ctx.value(name, fn) return as_value(trace_fn(ctx, name, fn), R, name, fn_where(fn)) end
  function ctx.resolve_state(name) return resolve(ctx, name, "?", R.where) end
  local D = { funcs = {}, constraints = {}, rprob = {}, targets = {}, moves = {} }
  for _, fname in ipairs(sorted_keys(R.functions, "functions", R.where)) do
    D.funcs[#D.funcs + 1] = { fname, ctx.value(fname, R.functions[fname]) }
  end
  D.utility = ctx.memo.utility and as_value(ctx.memo.utility.res, R, "utility", R.where)
  for _, cname in ipairs(sorted_keys(R.constraints, "constraints", R.where)) do
    local fn = R.constraints[cname]
    local v = ctx.value(cname, fn)
    if T.type_of(v) ~= "bool" then
      fail_at(fn_where(fn), "regime '" .. R.name .. "', constraint '" .. cname ..
        "' must return a condition (x:le(y), lcm.all(...), ...), not a number")
    end
    D.constraints[#D.constraints + 1] = { cname, v }
  end
  if R.taste then D.taste = taste_scale(ctx, g) end
  if R.terminal then
    D.q = D.utility
  else
    check_transition_keys(ctx)
    local probs, where = regime_probs(ctx)
    for id = 0, #M.regimes - 1 do
      if probs[id] ~= nil then
        D.rprob[#D.rprob + 1] = { M.regimes[id + 1].name, probs[id] }
        local TR = M.regimes[id + 1]
        local known = prob_at(M, probs[id])
        Reach.check_entered_active(M, R, TR, known, where)
        D.moves[#D.moves + 1] = { to = id + 1, periods = Reach.move_periods(M, R, TR, known) }
        -- next states for every target R may enter whatever the known
        -- probabilities: the kernels weigh them with the run-time ones
        if #Reach.move_periods(M, R, TR) > 0 then
          local tg = { regime = TR.name, next = {} }
          for _, sv in ipairs(TR.states) do tg.next[#tg.next + 1] = { sv.name, next_state(ctx, TR, sv) } end
          D.targets[#D.targets + 1] = tg
        end
      end
    end
    for t = 1, #M.ages - 1 do
      if R.active[t] then
        local any = false
        for id = 0, #M.regimes - 1 do
          if probs[id] ~= nil and M.regimes[id + 1].active[t + 1] then any = true end
        end
        if not any then
          fail_at(R.where, "regime '" .. R.name .. "' is active at age " .. M.ages[t] ..
            " but none of the regimes it can move to is active at age " .. M.ages[t + 1])
        end
      end
    end
    D.q = ctx.value("H", R.functions.H or default_H)
    if R.spec.risk_aversion then D.risk_aversion = risk_aversion(ctx, R.spec.risk_aversion) end
  end
  if R.spec.solver then D.egm = EgmPlan.plan(R, D, M, fn_where, fail_at)
  elseif not R.terminal then
    -- grid search: its margin (for the Euler errors) if EGM's checks hold;
    -- undone here and planned again after the regime's other nodes
    -- (dag_data), so that the kernels' node ids are those without it
    local mark = T.mark()
    local P, why = EgmPlan.plan(R, D, M, fn_where, fail_at, true)
    T.rollback(mark)
    D.margin_why = why
    if P then
      D.margin = { state_name = P.state_name, action_name = P.action_name, requires = P.requires,
        plan = function() return EgmPlan.plan(R, D, M, fn_where, fail_at, true) end }
    end
  end
  if R.marginal_of then D.marginal = EgmPlan.terminal_marginal(R, D) end
  D.graph = g
  T.set_graph(nil)
  return D
end

---------------------------------------------------------------------------
-- the model as data: gen/lua_model.c reads these tables into the IR and
-- ir/manifest.c writes the manifest from it.  Node, slot and source ids
-- are 0-based, as in the manifest.
---------------------------------------------------------------------------

-- A grid as data: its kind, n and fields; a grid by age lists its periods' grids.
local function grid_data(g, R, name)
  local out = { kind = g.kind, n = g.n, batch = g.batch_size > 0 and g.batch_size or 0 }
  if g.kind == "by_age" then
    out.periods = {}
    for t, pg in ipairs(g.periods) do out.periods[t] = grid_data(pg, R, name) end
    return out
  end
  out.dist = g.distributed and true or false
  if g.kind == "discrete" then
    if g.cat.name then out.category = tostring(g.cat.name) end
    out.labels = {}
    for i, l in ipairs(g.cat.labels) do out.labels[i] = tostring(l) end
  elseif g.kind == "lin" or g.kind == "log" then
    out.start, out.stop = g.start, g.stop
  elseif g.kind == "irregular" and g.runtime then
    out.runtime = R.var_slots[name]
  elseif g.kind == "irregular" then
    out.points = {}
    for i, x in ipairs(g.points) do out.points[i] = x end
  elseif g.kind == "pwlin" or g.kind == "pwlog" then
    out.pieces = {}
    for i, p in ipairs(g.pieces) do
      out.pieces[i] = { lo = p.lo, hi = p.hi, lo_closed = p.lo_closed and true or false,
        hi_closed = p.hi_closed and true or false, n = p.n }
    end
  elseif g.kind == "process" then
    out.process, out.gh, out.slots = g.process, g.gh and true or false, {}
    for i, s in ipairs(R.var_slots[name]) do out.slots[i] = s end
  end
  return out
end

local function var_data(v, R) return { name = v.name, grid = grid_data(v.grid, R, v.name) } end

-- The regime's DAG: its roots, then its nodes (a root's constant may add a node).
local function dag_data(R, D)
  local g = D.graph
  T.set_graph(g)
  local function id(x)
    if T.is_sym(x) then return x.id - 1 end
    return T.const_id(x) - 1
  end
  local out = { utility = id(D.utility), q = id(D.q), constraints = {}, funcs = {}, rprob = {}, targets = {} }
  if D.risk_aversion ~= nil then out.risk_aversion = id(D.risk_aversion) end
  for i, c in ipairs(D.constraints) do out.constraints[i] = { name = c[1], node = id(c[2]) } end
  for i, f in ipairs(D.funcs) do out.funcs[i] = { name = f[1], node = id(f[2]) } end
  if D.taste ~= nil then out.taste = id(D.taste) end
  for i, p in ipairs(D.rprob) do out.rprob[i] = { regime = p[1], node = id(p[2]) } end
  if D.marginal ~= nil then out.marginal = { state = R.marginal_of, node = id(D.marginal) } end
  local function egm_roots(P)
    return { resources = id(P.resources), discount = id(P.discount), marginal = id(P.marginal), policy = id(P.policy) }
  end
  if D.egm then out.egm = egm_roots(D.egm) end
  for i, tg in ipairs(D.targets) do
    local target = { regime = tg.regime, next = {} }
    for j, nx in ipairs(tg.next) do
      local spec = nx[2]
      if spec.kind == "det" then
        target.next[j] = { state = nx[1], kind = "det", node = id(spec.value) }
      elseif spec.kind == "process" then
        target.next[j] = { state = nx[1], kind = "process", src = spec.src }
      else
        local ids = {}
        for k, p in ipairs(spec.probs) do ids[k] = id(p) end
        target.next[j] = { state = nx[1], kind = "markov", probs = ids }
      end
    end
    local en = D.egm and D.egm.next[tg.regime]
    if en then target.egm_next = { next = id(en[1]), dnext = id(en[2]) } end
    out.targets[i] = target
  end
  if #g.nodes > MAX_NODES then
    fail_at(R.where, "regime '" .. R.name .. "': its functions make " .. #g.nodes .. " operations, more than " ..
      MAX_NODES .. " (a loop in a model function is unrolled into the solver, which would take the C compiler " ..
      "hours or exhaust it)")
  end
  -- the nodes of d resources / d x, and a grid-search margin's, after the
  -- others: the kernels' node ids stay those of the model without them
  -- (a grid-search regime's kernels read none of its margin_nodes, the last
  -- ones; ir/eliminate.c leaves them out of a staged solve's DAG)
  if D.egm then out.egm.dresources = id(EgmPlan.dresources(D.egm, fail_at)) end
  if D.margin then
    local mark = #g.nodes
    local P = D.margin.plan()
    out.egm = egm_roots(P)
    out.egm.dresources = id(P.dresources)
    for i, tg in ipairs(D.targets) do
      local en = P.next[tg.regime]
      if en then out.targets[i].egm_next = { next = id(en[1]), dnext = id(en[2]) } end
    end
    out.margin_nodes = #g.nodes - mark
    if #g.nodes > MAX_NODES then -- no margin rather than no model
      T.rollback(mark)
      out.egm, out.margin_nodes, D.margin = nil, nil, nil
      for _, target in ipairs(out.targets) do target.egm_next = nil end
      D.margin_why = "its margin's operations would make the regime's more than " .. MAX_NODES
    end
  end
  -- a terminal regime's d utility / d x for the Euler errors alone, after
  -- the others: no kernel reads it (build checked above that it can be)
  if D.euler_marginal_of then
    local d = EgmPlan.terminal_marginal(R, D, D.euler_marginal_of, function(msg) fail_at(R.where, msg) end)
    out.euler_marginal = { state = D.euler_marginal_of, node = id(d) }
  end
  out.nodes = {}
  for i, n in ipairs(g.nodes) do
    local node = { op = n.op, src = n.src, args = {} }
    if n.op == "const" then node.k = n.k
    elseif n.ref ~= nil then node.ref = n.ref end
    for j, a in ipairs(n.args) do node.args[j] = a - 1 end
    out.nodes[i] = node
  end
  T.set_graph(nil)
  return out
end

---------------------------------------------------------------------------
-- entry point
---------------------------------------------------------------------------

-- model: what the model file returned; file: its path; stem: default name.

-- The two knobs of a state axis (docs/tuning.md).  Sharded states
-- (distributed = true) form one combined index split across devices, so
-- every regime carries all of them or none, each name with the same
-- categories everywhere it appears; splay (batch_size) tiles the state
-- sweep, so on an action it would do nothing.  The limits and what counts
-- as splayed are the layout's (ir/layout.h); ir/manifest.c checks them
-- again, without the model's lines.
local function check_knobs(M)
  local MAX_SHARDED, MAX_SPLAYED = layout.max_sharded, layout.max_splayed
  local sharded, names = {}, {}
  for _, R in ipairs(M.regimes) do
    for _, v in ipairs(R.states) do
      if v.grid.distributed and not sharded[v.name] then
        sharded[v.name] = { n = v.grid.n, where = v.grid.where, regime = R.name }
        names[#names + 1] = v.name
      end
    end
  end
  if #names > MAX_SHARDED then
    fail_at(sharded[names[MAX_SHARDED + 1]].where, "at most " .. MAX_SHARDED .. " states can be sharded")
  end
  for _, R in ipairs(M.regimes) do
    local has, splayed = {}, 0
    for _, v in ipairs(R.states) do
      local sh = sharded[v.name]
      if sh and not v.grid.distributed then
        fail_at(v.grid.where, "regime '" .. R.name .. "': state '" .. v.name .. "' is sharded (distributed = true) " ..
          "in regime '" .. sh.regime .. "' but not here; give it the same grid (distributed = true) in every regime")
      end
      if sh and v.grid.n ~= sh.n then
        fail_at(v.grid.where, "regime '" .. R.name .. "': sharded state '" .. v.name .. "' has " .. v.grid.n ..
          " categories here and " .. sh.n .. " in regime '" .. sh.regime .. "'")
      end
      has[v.name] = true
      if layout.splays(v.grid.batch_size, v.grid.n) then splayed = splayed + 1 end
      if splayed > MAX_SPLAYED then
        fail_at(v.grid.where, "regime '" .. R.name .. "': at most " .. MAX_SPLAYED .. " states can be splayed (batch_size)")
      end
    end
    local carried, missing = 0, nil
    for _, name in ipairs(names) do
      if has[name] then carried = carried + 1 else missing = missing or name end
    end
    if carried > 0 and missing then
      fail_at(R.where, "regime '" .. R.name .. "' carries some sharded states but not '" .. missing .. "': a regime " ..
        "carries every sharded (distributed = true) state or none")
    end
    for _, v in ipairs(R.actions) do
      if v.grid.batch_size > 0 then
        T.warn(v.grid.where .. ": batch_size on the action '" .. v.name .. "' has no effect: splay tiles the " ..
          "state sweep (put it on a state)")
      end
    end
  end
end

function B.model(model, file, stem)
  if not lcm._is_model(model) then
    local what = model == nil and "nothing" or lcm._is_regime(model) and "an lcm.regime" or
      lcm._is_grid(model) and "a grid" or "a " .. type(model)
    error(file .. ": the model file must return lcm.model{...} (it returned " .. what .. ")", 0)
  end
  -- `return lcm.model{...}` is a tail call that hides its line: name the file
  local M = { where = model.where ~= "?" and model.where or file, file = file,
    srcs = { list = {}, index = {} }, slots = {}, slot_index = {},
    fixed_used = {} }
  M.name = model.name or stem
  if type(M.name) ~= "string" or not M.name:match("^[%w_%-%.]+$") then
    fail_at(M.where, "lcm.model: name must be letters, digits, '_', '-' or '.'")
  end
  if not lcm._is_ages(model.ages) then fail_at(M.where, "lcm.model: ages must be lcm.ages{...}") end
  M.ages = model.ages.values
  if type(model.regimes) ~= "table" or next(model.regimes) == nil then
    fail_at(M.where, "lcm.model: regimes must be a table of lcm.regime{...} by name")
  end
  local names = sorted_keys(model.regimes, "lcm.model: regimes", M.where)
  M.fixed_params, M.fix_given = merge_fixes(model.fixed_params, lcm._fixes(), model.regimes, M.where)
  if model.regime_ids ~= nil then
    if not lcm.is_categorical(model.regime_ids) then
      fail_at(M.where, "lcm.model: regime_ids must be a categorical of the regime names")
    end
    local labels = lcm._cat_info(model.regime_ids).labels
    local given = {}
    for _, n in ipairs(names) do given[n] = true end
    for _, l in ipairs(labels) do
      if not given[l] then fail_at(M.where, "lcm.model: regime_ids has '" .. l .. "' but regimes has no such regime") end
      given[l] = nil
    end
    local extra = next(given)
    if extra then fail_at(M.where, "lcm.model: regime '" .. extra .. "' is missing from regime_ids") end
    names = labels
  end
  if #names > 64 then fail_at(M.where, "lcm.model: at most 64 regimes are supported") end
  M.regimes, M.regime_by_name, M.regime_names, M.any_state, M.process_state = {}, {}, names, {}, {}
  for i, name in ipairs(names) do
    if not lcm._is_identifier(name) then fail_at(M.where, "lcm.model: regime name '" .. name .. "' is not a name") end
    local spec = model.regimes[name]
    if not lcm._is_regime(spec) then fail_at(M.where, "lcm.model: regimes." .. name .. " must be lcm.regime{...}") end
    local R = prepare_regime(name, spec, M)
    R.id = i - 1
    M.regimes[i], M.regime_by_name[name] = R, R
    for _, s in ipairs(R.states) do
      M.any_state[s.name] = true
      if s.grid.kind == "process" then M.process_state[s.name] = s.grid.process end
    end
  end
  -- a simulated panel has one column per name: each state's and action's
  -- (whichever regimes have it), each function's (--targets); a state of
  -- one regime that is an action of another, or a function named like a
  -- state or action of another regime, would make two columns of one name
  -- (within a regime prepare_regime refuses both)
  local column_of = {} -- name -> { what = "state" or "action", text = where it was seen first }
  for _, R in ipairs(M.regimes) do
    for _, what in ipairs({ "state", "action" }) do
      for _, v in ipairs(R[what .. "s"]) do
        local seen = column_of[v.name]
        if seen and seen.what ~= what then
          fail_at(R.where, "regime '" .. R.name .. "': " .. what .. " '" .. v.name .. "' is the " .. seen.text ..
            ": a simulated panel has one column per name; rename one of them")
        end
        column_of[v.name] = seen or { what = what, text = what .. " '" .. v.name .. "' of regime '" .. R.name .. "'" }
      end
    end
  end
  for _, R in ipairs(M.regimes) do
    for fname in pairs(R.functions) do
      if M.regime_by_name[fname] then
        fail_at(R.where, "regime '" .. R.name .. "': function '" .. fname .. "' has the name of a regime")
      end
      if column_of[fname] then
        fail_at(R.where, "regime '" .. R.name .. "': function '" .. fname .. "' has the name of the " ..
          column_of[fname].text .. ": a simulated panel has one column per name; rename one of them")
      end
    end
    if not R.terminal and R.active[#M.ages] then
      fail_at(R.where, "regime '" .. R.name .. "' is not terminal but is active at the last age (" ..
        M.ages[#M.ages] .. "): there is no next period. Make it inactive there " ..
        "(active = function(age) return age < " .. M.ages[#M.ages] .. " end) or terminal")
    end
  end
  local any_active = false
  for _, R in ipairs(M.regimes) do
    for t = 1, #M.ages do any_active = any_active or R.active[t] end
  end
  if not any_active then
    fail_at(M.where, string.format("no regime is active at any of the model's ages (%g to %g): check the regimes' " ..
      "active functions against lcm.ages", M.ages[1], M.ages[#M.ages]))
  end
  check_knobs(M)
  -- terminal regimes without actions that carry an EGM regime's liquid
  -- state keep its marginal value (gen/dsl/egm_plan.lua)
  for _, R in ipairs(M.regimes) do
    local x = R.spec.solver and EgmPlan.liquid_state(R)
    for _, TR in ipairs(x and M.regimes or {}) do
      if TR.terminal and #TR.actions == 0 and TR.state_index[x] and TR.states[TR.state_index[x]].grid.kind ~= "discrete" then
        TR.marginal_of = x
      end
    end
  end
  local dags = {}
  local moves = {}
  for i, R in ipairs(M.regimes) do
    dags[i] = trace_regime(R, M)
    moves[i] = dags[i].moves
  end
  -- a grid-search margin needs one for the same state in every target
  -- carrying it (gen/dsl/egm_plan.lua), or there d utility / d x of a
  -- terminal regime without actions: drop the others', until none is
  local index = {}
  for i, R in ipairs(M.regimes) do index[R.name] = i end
  -- why terminal regime TR has no d utility / d x (nil: it has; memoised)
  local terminal_why = {}
  local function terminal_margin(TR, TD, x)
    local key = TR.name .. "\0" .. x
    if terminal_why[key] == nil then
      local why = false
      if TR.marginal_of and TR.marginal_of ~= x then
        why = "it keeps the marginal value of '" .. TR.marginal_of .. "' for the endogenous grid method"
      elseif not TR.marginal_of then -- traced once here to see that it can be; dag_data adds it
        T.set_graph(TD.graph)
        local mark = T.mark()
        local ok, err = pcall(EgmPlan.terminal_marginal, TR, TD, x, function(msg) error({ reason = msg }, 0) end)
        T.rollback(mark)
        T.set_graph(nil)
        if not ok then
          if type(err) ~= "table" then error(err, 0) end
          why = "d utility / d '" .. x .. "': " .. err.reason
        end
      end
      terminal_why[key] = why
    end
    return terminal_why[key] or nil
  end
  local dropped = true
  while dropped do
    dropped = false
    for _, D in ipairs(dags) do
      local P = D.margin
      for _, name in ipairs(P and P.requires or {}) do
        local TR, TD = M.regimes[index[name]], dags[index[name]]
        if TR.terminal then -- without actions (egm_plan.lua): d utility / d x there
          local why = terminal_margin(TR, TD, P.state_name)
          if why then
            D.margin, dropped = nil, true
            D.margin_why = "it can move to the terminal regime '" .. name .. "', which carries '" .. P.state_name ..
              "' but has no marginal value of it (" .. why .. ")"
            break
          end
        else
          local TP = TD.egm or TD.margin
          if not TP or TP.state_name ~= P.state_name then
            D.margin, dropped = nil, true
            D.margin_why = "it can move to regime '" .. name .. "', which carries '" .. P.state_name .. "' but has " ..
              (TP and "its margin for '" .. TP.state_name .. "'" or "no margin for it (" .. TD.margin_why .. ")")
            break
          end
        end
      end
    end
  end
  -- the terminal regimes the margins left need d utility / d x of: for
  -- the Euler errors alone where no EGM regime's kernel reads it (ir.h)
  for _, D in ipairs(dags) do
    for _, name in ipairs(D.margin and D.margin.requires or {}) do
      local TR = M.regimes[index[name]]
      if TR.terminal and not TR.marginal_of then dags[index[name]].euler_marginal_of = D.margin.state_name end
    end
  end
  local reach = Reach.graph(M, moves)
  Reach.warnings(reach, T.warn)
  check_fixed_used(M)
  local opts = lcm._options()
  for name, raw in pairs(opts.given) do
    if opts.read[name] == nil then
      local known = {}
      for _, n in ipairs(opts.order) do known[#known + 1] = n end
      error(file .. ": option '" .. name .. "' (-D " .. name .. "=" .. raw .. ") is not read by the model" ..
        lcm._reads_clause(known), 0)
    end
  end

  local data = { name = M.name, file = file, options = {}, ages = {}, srcs = {}, params = {}, regimes = {} }
  for i, name in ipairs(opts.order) do data.options[i] = { name = name, value = tostring(opts.read[name]) } end
  for i, a in ipairs(M.ages) do data.ages[i] = a end
  -- the DAGs first: their constants may add source entries
  local dag = {}
  for i, R in ipairs(M.regimes) do dag[i] = dag_data(R, dags[i]) end
  for i, s in ipairs(M.srcs.list) do data.srcs[i] = tostring(s) end
  for i, s in ipairs(M.slots) do
    local p = { regime = s.regime, func = s.func, name = s.name, dims = {}, dimnames = {} }
    for d = 1, s.ndims do p.dims[d], p.dimnames[d] = s.dims[d], s.dimnames[d] end
    if s.fixed then p.fixed = flatten(s.fixed, s, M) end
    data.params[i] = p
  end
  for i, R in ipairs(M.regimes) do
    local r = { name = R.name, terminal = R.terminal and true or false, active = {}, states = {}, actions = {},
      dag = dag[i] }
    for t, a in ipairs(R.active) do r.active[t] = a and true or false end
    for j, v in ipairs(R.states) do r.states[j] = var_data(v, R) end
    for j, v in ipairs(R.actions) do r.actions[j] = var_data(v, R) end
    local P = dags[i].egm
    if P then r.egm = { state = P.state_name, action = P.action_name, savings = grid_data(P.savings, R, "savings") } end
    local G = dags[i].margin
    if G then r.egm = { state = G.state_name, action = G.action_name } end
    r.margin_why = dags[i].margin_why
    data.regimes[i] = r
  end
  return data, Reach.text(reach)
end

return B
