-- lcm.lua - the model language: what `require("lcm")` gives a model file.
--
-- Constructors here only validate and record; tracing and the manifest are
-- built afterwards by lcm/build.lua.  Every constructor remembers where the
-- user called it, so later errors can point at the right line.

local T = require("lcm.trace")

local lcm = {}

local function fail(msg)
  error(T.user_where() .. ": " .. msg, 0)
end

-- Numbers in messages read as the user wrote them: 2, not 2.0.
local function num(x)
  if x ~= x then return "nan" end -- not "-nan", as printf may write it
  if x == math.huge or x == -math.huge then return x > 0 and "inf" or "-inf" end
  local s = string.format("%.15g", x)
  if tonumber(s) ~= x then s = string.format("%.17g", x) end
  return s
end

-- Rejects unknown fields: a typo like `n_point` must not pass silently.
local edit_distance = require("lcm.layout").edit_distance -- base_edit_distance (gen/lua_host.c)

local function check_fields(spec, allowed, ctor)
  if type(spec) ~= "table" then fail(ctor .. " expects a table of fields") end
  for k in pairs(spec) do
    if type(k) ~= "string" or not allowed[k] then
      local names, near = {}, nil
      for n in pairs(allowed) do names[#names + 1] = n end
      table.sort(names)
      for _, n in ipairs(names) do
        if type(k) == "string" and not near and edit_distance(k, n) <= 2 then near = n end
      end
      fail(ctor .. ": unknown field '" .. tostring(k) .. "'" .. (near and " (did you mean '" .. near .. "'?)" or
        " (fields: " .. table.concat(names, ", ") .. ")"))
    end
  end
end

local function set(...)
  local s = {}
  for _, v in ipairs({ ... }) do s[v] = true end
  return s
end

local function is_identifier(s)
  return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil
end
lcm._is_identifier = is_identifier

-- Every number the generator bakes in (bounds, points, sizes, fixed
-- parameters, options) must be finite: NaN and inf pass plain comparisons
-- (inf == math.floor(inf), and every comparison with NaN is false).
local function finite(x) return type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge end
local function whole(x) return finite(x) and x == math.floor(x) end

-- A list the user wrote must have no holes: {1, 5, nil, 10} has # of 4 or
-- 2 (Lua does not say which) and ipairs stops at the nil, so a grid or a
-- category would go missing in silence.  what: "lcm.irregular: points".
local function check_no_holes(t, what)
  local last = 0
  for k in next, t do
    if math.type(k) == "integer" and k > last then last = k end
  end
  for i = 1, last do
    if rawget(t, i) == nil then
      fail(what .. ": entry " .. i .. " is nil (a hole in the list; its length is " .. last .. ")")
    end
  end
end
lcm._finite, lcm._num = finite, num

---------------------------------------------------------------------------
-- categorical types
---------------------------------------------------------------------------

local CATS = setmetatable({}, { __mode = "k" })
local Cat = {
  __index = function(c, k)
    local info = CATS[c]
    fail("'" .. tostring(k) .. "' is not a category of " .. (info.name or "this categorical") ..
      " (categories: " .. table.concat(info.labels, ", ") .. ")")
  end,
  __newindex = function() fail("categorical types are read-only") end,
}

-- lcm.categorical{"bad", "good"}, lcm.categorical{"bad", "good", name = "Health"}
-- or lcm.categorical(n) for codes 0..n-1 labelled "0".."n-1".
function lcm.categorical(spec)
  local labels, name = {}, nil
  if math.type(spec) == "integer" then
    if spec < 1 then fail("lcm.categorical(n) needs n >= 1") end
    for i = 0, spec - 1 do labels[#labels + 1] = tostring(i) end
  elseif type(spec) == "table" then
    for k, v in pairs(spec) do
      if k == "name" then name = v
      elseif math.type(k) ~= "integer" then fail("lcm.categorical: unexpected field '" .. tostring(k) .. "'") end
    end
    check_no_holes(spec, "lcm.categorical: the labels")
    for i, l in ipairs(spec) do labels[i] = l end
    if #labels == 0 then fail("lcm.categorical needs at least one label") end
  else
    fail("lcm.categorical expects a list of labels or a number of categories")
  end
  if name ~= nil and not is_identifier(name) then
    fail("lcm.categorical: name must be a name (letters, digits, _), not " .. string.format("%q", tostring(name)))
  end
  local c, codes = setmetatable({}, Cat), {}
  for i, l in ipairs(labels) do
    if not is_identifier(l) and not tostring(l):match("^%d+$") then
      fail("lcm.categorical: label '" .. tostring(l) .. "' is not a name (letters, digits, _)")
    end
    if codes[l] then fail("lcm.categorical: label '" .. l .. "' appears twice") end
    codes[l] = i - 1
    rawset(c, l, i - 1)
  end
  CATS[c] = { labels = labels, codes = codes, name = name, where = T.user_where() }
  return c
end

function lcm.is_categorical(c) return type(c) == "table" and CATS[c] ~= nil end
function lcm._cat_info(c) return CATS[c] end
function lcm.labels(c)
  local info = CATS[c] or fail("lcm.labels expects a categorical type")
  return { table.unpack(info.labels) }
end

---------------------------------------------------------------------------
-- ages
---------------------------------------------------------------------------

local Ages = {}
local MAX_PERIODS = 100000

-- lcm.ages{start = 40, stop = 90, step = 10} (stop included),
-- lcm.ages{start = 40, step = 10, n_periods = 6} or lcm.ages{values = {...}}.
function lcm.ages(spec)
  check_fields(spec, set("start", "stop", "step", "n_periods", "values"), "lcm.ages")
  local values = {}
  if spec.values then
    if spec.start or spec.stop or spec.step or spec.n_periods then
      fail("lcm.ages: give either values or start/step/stop")
    end
    if type(spec.values) ~= "table" then fail("lcm.ages: values must be a list of ages") end
    check_no_holes(spec.values, "lcm.ages: values")
    if #spec.values > MAX_PERIODS then fail("lcm.ages: at most " .. MAX_PERIODS .. " periods are supported") end
    for i, a in ipairs(spec.values) do
      if not finite(a) then fail("lcm.ages: age " .. i .. " is not a finite number") end
      if i > 1 and a <= spec.values[i - 1] then fail("lcm.ages: ages must increase (age " .. i .. ")") end
      values[i] = a + 0.0
    end
  else
    local start, step = spec.start, spec.step or 1
    if not finite(start) then fail("lcm.ages: start must be a number") end
    if not finite(step) or step <= 0 then fail("lcm.ages: step must be a positive number") end
    local n = spec.n_periods
    if spec.stop ~= nil then
      if n then fail("lcm.ages: give either stop or n_periods") end
      if not finite(spec.stop) or spec.stop < start then fail("lcm.ages: stop must be a number >= start") end
      local k = (spec.stop - start) / step
      n = math.floor(k + 0.5)
      if math.abs(k - n) > 1e-9 * math.max(1, math.abs(k)) then
        fail("lcm.ages: stop - start is not a multiple of step")
      end
      n = n + 1
    end
    if math.type(n) ~= "integer" and not (type(n) == "number" and n == math.floor(n)) then
      fail("lcm.ages: n_periods must be a whole number")
    end
    if not n or n < 1 then fail("lcm.ages needs stop or n_periods >= 1") end
    if n > MAX_PERIODS then fail("lcm.ages: " .. string.format("%.0f", n) .. " periods; at most " .. MAX_PERIODS .. " are supported") end
    for i = 1, n do values[i] = start + (i - 1) * step + 0.0 end
  end
  if #values == 0 then fail("lcm.ages: no ages") end
  return setmetatable({ values = values, where = T.user_where() }, Ages)
end

function lcm._is_ages(a) return getmetatable(a) == Ages end

---------------------------------------------------------------------------
-- grids
---------------------------------------------------------------------------

local Grid = {}
function lcm._is_grid(g) return getmetatable(g) == Grid end

local function batch_of(spec, ctor)
  local b = spec.batch_size or 0
  if not whole(b) or b < 0 then
    fail(ctor .. ": batch_size must be a whole number >= 0")
  end
  return math.tointeger(b)
end

local function no_distributed(spec, ctor)
  if spec.distributed then
    fail(ctor .. ": distributed = true is only allowed on discrete grids (a continuous axis cannot be sharded)")
  end
end

local MAX_POINTS = 2147483647

local function n_points_of(spec, ctor)
  local n = spec.n_points
  if not whole(n) then fail(ctor .. ": n_points must be a whole number") end
  if n < 2 then fail(ctor .. ": n_points must be at least 2 (got " .. n .. ")") end
  if n > MAX_POINTS then fail(ctor .. ": n_points must be at most " .. MAX_POINTS .. " (got " .. string.format("%.0f", n) .. ")") end
  return math.tointeger(n)
end

local function bounds_of(spec, ctor)
  if not finite(spec.start) then fail(ctor .. ": start must be a finite number") end
  if not finite(spec.stop) then fail(ctor .. ": stop must be a finite number") end
  if spec.start >= spec.stop then
    fail(ctor .. ": start (" .. num(spec.start) .. ") must be below stop (" .. num(spec.stop) .. ")")
  end
  return spec.start + 0.0, spec.stop + 0.0
end

local CONT_FIELDS = set("start", "stop", "n_points", "batch_size", "distributed")

-- lcm.linspace{start = 1, stop = 400, n_points = 100, batch_size = 0}
function lcm.linspace(spec)
  check_fields(spec, CONT_FIELDS, "lcm.linspace")
  no_distributed(spec, "lcm.linspace")
  local start, stop = bounds_of(spec, "lcm.linspace")
  return setmetatable({ kind = "lin", n = n_points_of(spec, "lcm.linspace"), start = start, stop = stop,
    batch_size = batch_of(spec, "lcm.linspace"), where = T.user_where() }, Grid)
end

-- lcm.logspace{start = 1, stop = 400, n_points = 100}: points evenly spaced in logs.
function lcm.logspace(spec)
  check_fields(spec, CONT_FIELDS, "lcm.logspace")
  no_distributed(spec, "lcm.logspace")
  local start, stop = bounds_of(spec, "lcm.logspace")
  if start <= 0 then fail("lcm.logspace: start must be positive (got " .. num(start) .. ")") end
  return setmetatable({ kind = "log", n = n_points_of(spec, "lcm.logspace"), start = start, stop = stop,
    batch_size = batch_of(spec, "lcm.logspace"), where = T.user_where() }, Grid)
end

-- lcm.irregular{points = {0, 1, 5, 20}}: strictly increasing points, or
-- lcm.irregular{n_points = 50}: points given at run time as the parameter
-- `points` of the grid (params: regime = { wealth = { points = {...} } }).
function lcm.irregular(spec)
  check_fields(spec, set("points", "n_points", "batch_size", "distributed"), "lcm.irregular")
  no_distributed(spec, "lcm.irregular")
  local pts = spec.points
  if pts == nil then
    if spec.n_points == nil then fail("lcm.irregular needs points, or n_points for points given at run time") end
    return setmetatable({ kind = "irregular", n = n_points_of(spec, "lcm.irregular"), runtime = true,
      batch_size = batch_of(spec, "lcm.irregular"), where = T.user_where() }, Grid)
  end
  if type(pts) ~= "table" then fail("lcm.irregular: points must be a list of numbers") end
  check_no_holes(pts, "lcm.irregular: points")
  if #pts < 2 then fail("lcm.irregular: needs at least 2 points (got " .. #pts .. ")") end
  if spec.n_points ~= nil and spec.n_points ~= #pts then
    fail("lcm.irregular: n_points (" .. tostring(spec.n_points) .. ") is not the number of points (" .. #pts .. ")")
  end
  local copy = {}
  for i, x in ipairs(pts) do
    if not finite(x) then fail("lcm.irregular: point " .. i .. " is not a finite number") end
    if i > 1 and x <= pts[i - 1] then
      fail("lcm.irregular: points must be strictly increasing (point " .. i .. " = " .. num(x) ..
        " after " .. num(pts[i - 1]) .. ")")
    end
    copy[i] = x + 0.0
  end
  return setmetatable({ kind = "irregular", n = #copy, points = copy,
    batch_size = batch_of(spec, "lcm.irregular"), where = T.user_where() }, Grid)
end

-- Piecewise grids: lcm.piecewise_linspace{ pieces = { {"[1, 4)", 30}, {"[4, 10]", 60} } }.
-- Pieces are adjacent intervals: each boundary closed on exactly one side;
-- an open end stops at the neighbouring floating-point number.
local function parse_interval(text, i, ctor)
  if type(text) ~= "string" then fail(ctor .. ": piece " .. i .. " needs an interval like \"[1, 4)\"") end
  local l, a, b, r = text:match("^%s*([%[%(])%s*([^,%s]+)%s*,%s*([^%]%)%s]+)%s*([%]%)])%s*$")
  local lo, hi = tonumber(a), tonumber(b)
  if not l or not finite(lo) or not finite(hi) then
    fail(ctor .. ": piece " .. i .. ": '" .. text .. "' is not an interval like \"[1, 4)\" or \"(4, 10]\"")
  end
  if lo >= hi then fail(ctor .. ": piece " .. i .. ": " .. text .. " must have lower < upper") end
  return { lo = lo + 0.0, hi = hi + 0.0, lo_closed = l == "[", hi_closed = r == "]" }
end

local function piecewise(kind, ctor)
  return function(spec)
    check_fields(spec, set("pieces", "batch_size", "distributed"), ctor)
    no_distributed(spec, ctor)
    if type(spec.pieces) ~= "table" or #spec.pieces < 1 then fail(ctor .. ": pieces must be a list of {interval, n_points}") end
    check_no_holes(spec.pieces, ctor .. ": pieces")
    local pieces, total = {}, 0
    for i, piece in ipairs(spec.pieces) do
      if type(piece) ~= "table" then fail(ctor .. ": piece " .. i .. " must be {interval, n_points}") end
      local p = parse_interval(piece[1] or piece.interval, i, ctor)
      local n = piece[2] or piece.n_points
      if not whole(n) or n < 2 then
        fail(ctor .. ": piece " .. i .. " needs n_points, a whole number >= 2")
      end
      if kind == "pwlog" and p.lo <= 0 then
        fail(ctor .. ": piece " .. i .. " starts at " .. num(p.lo) .. "; logarithmic pieces need positive bounds")
      end
      p.n = math.tointeger(n)
      total = total + p.n
      if i > 1 then
        local q = pieces[i - 1]
        if q.hi ~= p.lo then
          fail(ctor .. ": pieces " .. (i - 1) .. " and " .. i .. " are not adjacent (" .. num(q.hi) ..
            (q.hi < p.lo and " leaves a gap to " or " overlaps ") .. num(p.lo) .. ")")
        end
        if q.hi_closed == p.lo_closed then
          fail(ctor .. ": pieces " .. (i - 1) .. " and " .. i .. " meet at " .. num(p.lo) .. ", which must be closed on " ..
            "exactly one side (e.g. \"[a, x)\" then \"[x, b]\")")
        end
      end
      pieces[i] = p
    end
    return setmetatable({ kind = kind, n = total, pieces = pieces, batch_size = batch_of(spec, ctor),
      where = T.user_where() }, Grid)
  end
end
lcm.piecewise_linspace = piecewise("pwlin", "lcm.piecewise_linspace")
lcm.piecewise_logspace = piecewise("pwlog", "lcm.piecewise_logspace")

-- Shock processes: a state that carries its own grid and transition.  A
-- parameter left out is given at run time (params: regime = { state = {
-- rho = ... } }); changing it recompiles nothing.
local PROCESSES = {
  normal_iid = { params = { "mu", "sigma", "n_std" }, gh = true },
  lognormal_iid = { params = { "mu", "sigma", "n_std" }, gh = true },
  uniform_iid = { params = { "start", "stop" } },
  normal_mixture_iid = { params = { "n_std", "p1", "mu1", "sigma1", "mu2", "sigma2" } },
  tauchen_ar1 = { params = { "rho", "sigma", "mu", "n_std" }, gh = true, ar1 = true },
  rouwenhorst_ar1 = { params = { "rho", "sigma", "mu" }, ar1 = true },
  tauchen_normal_mixture_ar1 = { params = { "rho", "mu", "n_std", "p1", "mu1", "sigma1", "mu2", "sigma2" }, ar1 = true },
}

-- The domains of fixed parameters, checked here so the error names the line;
-- run-time values get the same checks in the runtime (ir/process.c).
local function positive(x) return not (x > 0) and "positive" or nil end
local PARAM_DOMAIN = {
  sigma = positive, sigma1 = positive, sigma2 = positive, n_std = positive,
  rho = function(x) return not (math.abs(x) < 1) and "inside (-1, 1)" or nil end,
  p1 = function(x) return not (x >= 0 and x <= 1) and "a probability" or nil end,
}

-- What is wrong with x as the value of process parameter p ("must be ..."),
-- or nil; for the constructor's fields and for fixed_params alike.
function lcm._process_param_problem(p, x)
  if not finite(x) then return "must be a finite number (got " .. num(x) .. ")" end
  local bad = PARAM_DOMAIN[p] and PARAM_DOMAIN[p](x)
  return bad and "must be " .. bad .. " (got " .. num(x) .. ")" or nil
end

for name, def in pairs(PROCESSES) do
  local ctor = "lcm." .. name
  lcm[name] = function(spec)
    local allowed = set("n_points", "batch_size", "distributed", table.unpack(def.params))
    if def.gh then allowed.gauss_hermite = true end
    check_fields(spec, allowed, ctor)
    no_distributed(spec, ctor)
    local gh = false
    if def.gh then
      if type(spec.gauss_hermite) ~= "boolean" then
        fail(ctor .. " needs gauss_hermite = true (Gauss-Hermite nodes and weights) or false (equally spaced points)")
      end
      gh = spec.gauss_hermite
    end
    local n = spec.n_points
    if not whole(n) or n < 1 then fail(ctor .. ": n_points must be a whole number >= 1") end
    if gh and n % 2 == 0 then
      fail(ctor .. ": with Gauss-Hermite nodes n_points must be odd (got " .. n .. "), so that a node sits at the mean")
    end
    if not gh and n < 2 then fail(ctor .. ": n_points must be at least 2") end
    if gh and spec.n_std ~= nil then fail(ctor .. ": n_std does not apply to Gauss-Hermite nodes") end
    local params, fixed = {}, {}
    for _, p in ipairs(def.params) do
      if not (gh and p == "n_std") then
        params[#params + 1] = p
        if spec[p] ~= nil then
          local bad = lcm._process_param_problem(p, spec[p])
          if bad then fail(ctor .. ": " .. p .. " " .. bad) end
          fixed[p] = spec[p] * 1.0
        end
      end
    end
    if fixed.start and fixed.stop and not (fixed.start < fixed.stop) then
      fail(ctor .. ": start (" .. num(fixed.start) .. ") must be below stop (" .. num(fixed.stop) .. ")")
    end
    return setmetatable({ kind = "process", process = name, ar1 = def.ar1 or false, gh = gh,
      n = math.tointeger(n), params = params, fixed = fixed, batch_size = batch_of(spec, ctor),
      where = T.user_where() }, Grid)
  end
end

-- lcm.discrete(Category, {batch_size = 0, distributed = false})
function lcm.discrete(cat, opts)
  if not lcm.is_categorical(cat) then fail("lcm.discrete expects a categorical type (lcm.categorical{...})") end
  opts = opts or {}
  check_fields(opts, set("batch_size", "distributed"), "lcm.discrete")
  local info = CATS[cat]
  local dist = opts.distributed or false
  if type(dist) ~= "boolean" then fail("lcm.discrete: distributed must be true or false") end
  local batch = batch_of(opts, "lcm.discrete")
  if dist and batch > 0 then
    fail("lcm.discrete: an axis cannot be both splayed (batch_size > 0) and sharded (distributed = true); " ..
      "keep batch_size = 0 on the sharded axis and splay another one")
  end
  return setmetatable({ kind = "discrete", n = #info.labels, cat = info, batch_size = batch,
    distributed = dist, where = T.user_where() }, Grid)
end

---------------------------------------------------------------------------
-- transitions
---------------------------------------------------------------------------

local Markov = {}
function lcm._is_markov(x) return getmetatable(x) == Markov end

-- Marks a transition function as returning probabilities (of next
-- categories for a state, of next regimes for a regime transition).
function lcm.markov(fn)
  if type(fn) ~= "function" then fail("lcm.markov expects a function") end
  return setmetatable({ fn = fn, where = T.user_where() }, Markov)
end

-- Extreme-value (EV1/Gumbel) taste shocks on a regime's discrete actions:
-- `scale` is a traced function (of parameters, period, age, states), the
-- scale of the Gumbel shock added to each combination of discrete actions.
local TasteShocks = {}
function lcm._is_taste_shocks(x) return getmetatable(x) == TasteShocks end

function lcm.ev1(spec)
  check_fields(spec, set("scale"), "lcm.ev1")
  if lcm._is_by_age(spec.scale) then
    fail("lcm.ev1: scale cannot be lcm.by_age(...); read age or period in the scale's function instead")
  end
  if type(spec.scale) ~= "function" then
    fail("lcm.ev1: scale must be a function (e.g. function(taste_shock_scale) return taste_shock_scale end)")
  end
  return setmetatable({ scale = spec.scale, where = T.user_where() }, TasteShocks)
end

-- The endogenous grid method (Carroll 2006; with discrete actions the
-- DC-EGM of Iskhakov, Jorgensen, Rust & Schjerning 2017) as a regime's
-- solver: `savings` is the grid of what the continuous action leaves of the
-- resources (savings = resources - consumption), its first point the
-- borrowing limit; `state` and `action` name the liquid state and the
-- action paid from it when the regime has more than one continuous state
-- or action.  gen/dsl/build.lua derives the rest from the model's own
-- functions (docs/model-language.md, "Solvers").
local Solver = {}
function lcm._is_solver(x) return getmetatable(x) == Solver end

function lcm.egm(spec)
  check_fields(spec, set("savings", "state", "action"), "lcm.egm")
  if not lcm._is_grid(spec.savings) then
    fail("lcm.egm: savings must be a grid of savings (e.g. lcm.linspace{ start = 0, stop = 400, n_points = 1000 })")
  end
  local g = spec.savings
  if g.kind ~= "lin" and g.kind ~= "log" and g.kind ~= "pwlin" and g.kind ~= "pwlog" and
    not (g.kind == "irregular" and not g.runtime) then
    fail("lcm.egm: savings must be a continuous grid fixed in the model (linspace, logspace, piecewise or " ..
      "irregular with its points), not " .. (g.runtime and "one with points given at run time" or
      g.kind == "process" and "a shock process" or "a " .. g.kind .. " grid"))
  end
  if g.batch_size > 0 then fail("lcm.egm: savings takes no batch_size (it is no axis of V)") end
  for _, k in ipairs({ "state", "action" }) do
    if spec[k] ~= nil and not is_identifier(spec[k]) then
      fail("lcm.egm: " .. k .. " must be the name of the regime's " .. (k == "state" and "liquid state" or
        "continuous action") .. ", a string")
    end
  end
  return setmetatable({ kind = "egm", savings = g, state = spec.state, action = spec.action,
    where = T.user_where() }, Solver)
end

-- Age specialisation: lcm.by_age(function(age) ... end) stands for a
-- state's grid, a regime function or a constraint that differs by age.
-- build(age) is called at each age at which the regime is active and
-- returns what holds at that age: a grid (for a state) or a function.
local ByAge = {}
function lcm._is_by_age(x) return getmetatable(x) == ByAge end

function lcm.by_age(build)
  if type(build) ~= "function" then
    fail("lcm.by_age expects a function of age that returns a grid (for a state) or a function " ..
      "(for a regime function or a constraint)")
  end
  return setmetatable({ build = build, where = T.user_where() }, ByAge)
end

-- A fixed state: its next value is its current value.
lcm.fixed = setmetatable({}, { __tostring = function() return "lcm.fixed" end })

---------------------------------------------------------------------------
-- regimes and models
---------------------------------------------------------------------------

local Regime, Model = {}, {}
function lcm._is_regime(r) return getmetatable(r) == Regime end
function lcm._is_model(m) return getmetatable(m) == Model end

local REGIME_FIELDS = set("terminal", "active", "states", "actions", "functions", "constraints",
  "state_transitions", "transition", "risk_aversion", "description", "taste_shocks", "solver")

function lcm.regime(spec)
  check_fields(spec, REGIME_FIELDS, "lcm.regime")
  local r = {}
  for k, v in pairs(spec) do r[k] = v end
  r.where = T.user_where()
  return setmetatable(r, Regime)
end

function lcm.model(spec)
  check_fields(spec, set("name", "description", "ages", "regimes", "regime_ids", "fixed_params"), "lcm.model")
  local m = {}
  for k, v in pairs(spec) do m[k] = v end
  m.where = T.user_where()
  return setmetatable(m, Model)
end

---------------------------------------------------------------------------
-- structural options: lcmgen -D name=value
---------------------------------------------------------------------------

-- given: name -> the -D value as written.  complete: given holds every
-- option the model reads (a data file such as initial conditions, run after
-- the model with the options its manifest records), so a name outside it is
-- a mistake, not an option left at its default.
local options = { given = {}, read = {}, order = {}, complete = false }
function lcm._set_options(given, complete) options.given, options.complete = given, complete == true end

-- Parameters fixed from outside the model (lcmgen --fix path=value): a list
-- of { path, value } strings in the order given; gen/dsl/build.lua merges
-- them into the model's fixed_params.
local fixes = {}
function lcm._set_fixes(list) fixes = list end
function lcm._fixes() return fixes end

---------------------------------------------------------------------------
-- data files beside the model (read through the sandbox, gen/lua_sandbox.h)
---------------------------------------------------------------------------

local reader
function lcm._set_reader(f) reader = f end

-- The bytes of a file in the model's folder (or below), by a name relative
-- to that folder.
local function read_data(name, who)
  if type(name) ~= "string" then fail(who .. ": the file name must be a string") end
  if not reader then fail(who .. ": this file may read no data file") end
  local ok, text = pcall(reader, name)
  if not ok then fail((tostring(text):gsub("^lcm%.read_file:", who .. ":"))) end
  return text
end
function lcm.read_file(name) return read_data(name, "lcm.read_file") end

-- A table of numbers in a text file beside the model: one row a line,
-- fields separated by spaces, tabs, commas or semicolons; blank lines and
-- lines starting with # are skipped.  A first line that is not all numbers
-- is the header (its names distinct).  No field is empty: one comma or
-- semicolon between two fields at most, none before the first or after the
-- last (a missing number would shift the row's others into its column).  Returns { header = {names...} or nil, rows = {{...}, ...},
-- columns = { name = {...} } } (columns only with a header; a short row
-- leaves holes at its end).
function lcm.read_table(name)
  local text = read_data(name, "lcm.read_table")
  local header, rows, line_no, pos = nil, {}, 0, 1
  -- lines and fields by plain finds, one pass each: the sandbox bounds
  -- patterns that could backtrack (gen/lua_sandbox.c), and these cannot
  while pos <= #text do
    local stop = text:find("[\r\n]", pos) or #text + 1
    local line = text:sub(pos, stop - 1)
    pos = stop + ((text:sub(stop, stop + 1) == "\r\n") and 2 or 1)
    line_no = line_no + 1
    if line:find("%S") and not line:find("^%s*#") then
      local fields, from = {}, 1
      local function empty_field(gap, ends)
        local _, marks = gap:gsub("[,;]", "")
        return marks > (ends and 0 or 1)
      end
      while true do -- anchored finds: linear in the line (the sandbox bounds patterns by their cost)
        local _, gap_end = line:find("^[%s,;]*", from)
        local a, b = line:find("^[^%s,;]+", gap_end + 1)
        if empty_field(line:sub(from, gap_end), from == 1 or not a) then
          fail(string.format("lcm.read_table: %s, line %d: field %d is empty (two commas or semicolons with " ..
            "nothing between, or one at the start or end of the line)", name, line_no, #fields + 1))
        end
        if not a then break end
        fields[#fields + 1] = line:sub(a, b)
        from = b + 1
      end
      local numbers, bad = {}, nil
      for i, f in ipairs(fields) do
        numbers[i] = tonumber(f)
        if not finite(numbers[i]) then bad = bad or f end
      end
      if bad and not header and #rows == 0 then
        header = fields
        local seen = {}
        for _, h in ipairs(header) do
          if seen[h] then fail(string.format("lcm.read_table: %s, line %d: column '%s' appears twice", name, line_no, h)) end
          seen[h] = true
        end
      elseif bad then
        fail(string.format("lcm.read_table: %s, line %d: '%s' is not a finite number", name, line_no, bad))
      elseif #fields > 0 then
        rows[#rows + 1] = numbers
      end
    end
  end
  local columns = nil
  if header then
    columns = {}
    for j, h in ipairs(header) do
      local col = {}
      for i, r in ipairs(rows) do col[i] = r[j] end
      columns[h] = col
    end
  end
  return { header = header, rows = rows, columns = columns }
end
function lcm._options() return options end
-- " (it reads: a, b)" or " (it reads no options)": how a message about an
-- option the model does not read lists the ones it does
function lcm._reads_clause(names)
  return #names > 0 and " (it reads: " .. table.concat(names, ", ") .. ")" or " (it reads no options)"
end

-- Returns the value given with -D name=value (converted to the type of
-- `default`), or `default`.
function lcm.option(name, default)
  if not is_identifier(name) then fail("lcm.option: the name must be an identifier") end
  if default == nil then
    fail("lcm.option('" .. name .. "'): give a default, lcm.option('" .. name .. "', default): a number, a " ..
      "string or a boolean (its type is the option's)")
  end
  local t = type(default)
  if t ~= "number" and t ~= "string" and t ~= "boolean" then
    fail("lcm.option: the default of '" .. name .. "' must be a number, a string or a boolean, not a " .. t)
  end
  local raw = options.given[name]
  if raw == nil and options.complete then
    local known = {}
    for n in pairs(options.given) do known[#known + 1] = n end
    table.sort(known)
    fail("lcm.option: option '" .. name .. "' is not read by the model" .. lcm._reads_clause(known))
  end
  local value = default
  if raw ~= nil then
    if t == "number" then
      value = tonumber(raw)
      if value == nil then fail("option " .. name .. "=" .. raw .. " is not a number") end
      if math.type(default) == "integer" then
        value = math.tointeger(value) or fail("option " .. name .. "=" .. raw .. " is not a whole number")
      end
      if not finite(value) then fail("option " .. name .. "=" .. raw .. " is not a finite number") end
    elseif t == "boolean" then
      if raw == "true" or raw == "1" then value = true
      elseif raw == "false" or raw == "0" then value = false
      else fail("option " .. name .. "=" .. raw .. " is not true or false") end
    else
      value = raw
      if value:find("[%z\n\r]") then fail("option " .. name .. ": its value holds a NUL byte or a line break") end
    end
  end
  if type(default) == "number" and not finite(default) then
    fail("lcm.option: the default of '" .. name .. "' is " .. num(default) .. ", not a finite number")
  end
  if type(value) == "string" and value:find("[%z\n\r]") then
    fail("lcm.option: the default of '" .. name .. "' holds a NUL byte or a line break")
  end
  if options.read[name] == nil then options.order[#options.order + 1] = name end
  options.read[name] = value
  return value
end

---------------------------------------------------------------------------
-- expressions: comparisons, logic and math on traced values
---------------------------------------------------------------------------

local function traced(...)
  for i = 1, select("#", ...) do
    local x = select(i, ...)
    if T.is_sym(x) or T.is_param(x) then return true end
  end
  return false
end

local function no_trace(fname)
  fail("lcm." .. fname .. " of plain numbers is only available inside model functions")
end

function lcm.where(cond, a, b)
  if type(cond) == "boolean" then
    fail("lcm.where: the condition is a plain Lua boolean. A comparison of traced values must be written " ..
      "x:lt(y), x:eq(y), ... (Lua's ==, <, ... cannot be traced); a condition known when the model is " ..
      "built can use a Lua 'if'")
  end
  if T.type_of(cond) ~= "bool" then
    fail("lcm.where: the condition must be a comparison (x:lt(y), lcm.all(...), ...), not a number")
  end
  return T.op("where", cond, a, b)
end

local function compare(op)
  return function(x, y)
    if not traced(x, y) then
      if type(x) ~= "number" or type(y) ~= "number" then fail("lcm." .. op .. " expects numbers") end
      return T.get_graph() and T.op(op, x, y) or no_trace(op)
    end
    return T.op(op, x, y)
  end
end
for _, op in ipairs({ "lt", "le", "gt", "ge", "eq", "ne" }) do lcm[op] = compare(op) end

local function fold_logic(op, ...)
  local n = select("#", ...)
  if n < 1 then fail("lcm." .. (op == "and" and "all" or "any") .. " needs at least one condition") end
  local acc = select(1, ...)
  for i = 2, n do acc = T.op(op, acc, (select(i, ...))) end
  if n == 1 then acc = T.op(op, acc, op == "and") end
  return acc
end
function lcm.all(...) return fold_logic("and", ...) end
function lcm.any(...) return fold_logic("or", ...) end
function lcm.not_(x) return T.op("not", x) end

-- Math that works on plain numbers and on traced values alike.  The
-- standard math library is patched the same way, so math.log(consumption)
-- works inside model functions.
local plain = { log = math.log, exp = math.exp, sqrt = math.sqrt, abs = math.abs,
  floor = math.floor, ceil = math.ceil, min = math.min, max = math.max }

local function unary(op, fallback)
  return function(x, base)
    if base ~= nil then
      if op ~= "log" then fail("lcm." .. op .. " takes one argument") end
      if traced(x, base) then return T.op("div", T.op("log", x), T.op("log", base)) end
      return fallback(x, base)
    end
    if traced(x) then return T.op(op, x) end
    if fallback then return fallback(x) end
    if T.get_graph() then return T.op(op, x) end
    no_trace(op)
  end
end

lcm.log, lcm.exp, lcm.sqrt, lcm.abs = unary("log", plain.log), unary("exp", plain.exp),
  unary("sqrt", plain.sqrt), unary("abs", plain.abs)
lcm.floor, lcm.ceil = unary("floor", plain.floor), unary("ceil", plain.ceil)
lcm.log1p, lcm.expm1 = unary("log1p"), unary("expm1")
lcm.normal_cdf, lcm.tanh = unary("normal_cdf"), unary("tanh")

local function nary(op, fallback)
  return function(...)
    if select("#", ...) < 1 then fail("lcm." .. op .. " needs at least one argument") end
    if not traced(...) then return fallback(...) end
    local acc = select(1, ...)
    for i = 2, select("#", ...) do acc = T.op(op, acc, (select(i, ...))) end
    return acc
  end
end
lcm.min, lcm.max = nary("min", plain.min), nary("max", plain.max)

function lcm.pow(x, y)
  if traced(x, y) then return T.op("pow", x, y) end
  return x ^ y
end

function lcm.clip(x, lo, hi) return lcm.min(lcm.max(x, lo), hi) end

-- The derivative of a traced value with respect to a continuous state or
-- action (gen/dsl/diff.lua): marginal utility is lcm.diff(utility, consumption).
function lcm.diff(y, x) return require("lcm.diff").diff(y, x) end

-- The x with y(x) = m in closed form (gen/dsl/inverse.lua): consumption from
-- marginal utility is lcm.inverse(marginal_utility, consumption, m).
function lcm.inverse(y, x, m) return require("lcm.inverse").inverse(y, x, m) end

lcm.inf = math.huge

-- The weighted power mean (sum_i w_i x_i^p)^(1/p) of values x_i >= 0 (at
-- p = 0 its limit prod_i x_i^w_i, for weights summing to 1): the Epstein-Zin
-- aggregator is lcm.power_mean({ utility, E_next_V }, { 1 - beta, beta },
-- 1 - 1 / eis).  Written as x_i^p it overflows where p is far from 0 and an
-- x is small or large (pylcm #416: the same defect as the certainty
-- equivalent's, one level out), so it is taken about the anchor a = log x of
-- the positive value with the largest p log x: exp(a + log(sum w exp(p (log x
-- - a))) / p), every exponent <= 0, with log1p of the expm1 sum near p = 0
-- (the limit exact) and the plain sum where that sum nears -1.  A zero value
-- of non-zero weight gives 0 at p <= 0 and adds only its weight at p > 0; a
-- NaN value, weight or exponent gives NaN.  Only inside model functions.
function lcm.power_mean(values, weights, p)
  if type(values) ~= "table" or type(weights) ~= "table" or #values < 1 or #values ~= #weights then
    fail("lcm.power_mean expects a list of values, a list of as many weights and an exponent")
  end
  if p == nil then fail("lcm.power_mean: the exponent (third argument) is missing") end
  check_no_holes(values, "lcm.power_mean: the values")
  check_no_holes(weights, "lcm.power_mean: the weights")
  if not T.get_graph() then fail("lcm.power_mean is only available inside model functions") end
  local pos, logs, zero = {}, {}, false
  local a, has -- the anchor, and whether a positive value was met
  for i, x in ipairs(values) do
    pos[i] = lcm.gt(x, 0)
    logs[i] = lcm.log(lcm.where(pos[i], x, 1))
    if i == 1 then
      a, has = lcm.where(pos[1], logs[1], 0), pos[1]
    else
      a = lcm.where(lcm.all(pos[i], lcm.any(lcm.not_(has), lcm.gt(p * logs[i], p * a))), logs[i], a)
      if i < #values then has = lcm.any(has, pos[i]) end -- (a condition left unused is an error)
    end
    zero = lcm.any(zero, lcm.all(lcm.eq(x, 0), lcm.ne(weights[i], 0)))
  end
  local W, D, S, G = 0, 0, 0, 0 -- weights; sums of w expm1(p d), w exp(p d), w d (d = log x - a)
  for i, w in ipairs(weights) do
    local d = logs[i] - a
    W = W + w
    D = D + w * lcm.where(pos[i], lcm.expm1(p * d), -1)
    S = S + w * lcm.where(pos[i], lcm.exp(p * d), 0)
    G = G + w * lcm.where(pos[i], d, 0)
  end
  local ratio = (W - 1) + D -- sum w exp(p d) - 1
  local power = lcm.where(lcm.gt(ratio, -0.5), lcm.log1p(ratio), lcm.log(S)) / p
  local mean = lcm.where(lcm.all(zero, lcm.le(p, 0)), 0, lcm.exp(a + lcm.where(lcm.eq(p, 0), G, power)))
  -- A NaN value is not positive, so the selections above would leave it out
  -- (the power mean of the others); it is the result instead, as with +, so
  -- that the checks report it.  So is a NaN weight or exponent.
  for i = #values, 1, -1 do
    mean = lcm.where(lcm.ne(weights[i], weights[i]), weights[i], mean)
    mean = lcm.where(lcm.ne(values[i], values[i]), values[i], mean)
  end
  return lcm.where(lcm.ne(p, p), p, mean)
end

for name, f in pairs({ log = lcm.log, exp = lcm.exp, sqrt = lcm.sqrt, abs = lcm.abs,
  floor = lcm.floor, ceil = lcm.ceil, min = lcm.min, max = lcm.max }) do
  math[name] = f
end

return lcm
