-- lcm/egm_plan.lua - what the endogenous grid method needs of a regime,
-- derived from its traced functions (solver = lcm.egm{...}).
--
-- EGM (Carroll 2006) replaces the search over the continuous action c by
-- the Euler equation on a grid of savings a = R - c, R the resources (a
-- function of the states, the liquid state x among them): at each savings
-- point the expected marginal value of next period's x gives c by the
-- inverse of marginal utility, and R = a + c is where that c is optimal.
-- With discrete actions (DC-EGM, Iskhakov, Jorgensen, Rust & Schjerning
-- 2017) this is done per discrete choice, and the kernel takes the best of
-- the candidates the endogenous grid offers at each state, by the exact Q.
-- Other continuous actions before c (nested EGM, Druedahl 2021: a durable
-- chosen beside consumption) are enumerated on their grids as the discrete
-- ones are: a row of the endogenous grid per combination of them all.
--
-- From the trace this module finds, or refuses with the reason:
--   savings    the node R - c every next x goes through (next x = f(savings));
--   next, dnext  per target carrying x: next x with savings a leaf
--              (egm_savings), and its derivative by it (lcm.diff's rules);
--   discount   delta of Q = utility + delta * E_next_V;
--   marginal   d utility / d c, and policy: the c whose marginal utility is
--              the leaf egm_marginal (lcm.inverse's closed forms).
-- What EGM assumes and checks: utility does not read x; the regime
-- probabilities, the other next states and their probabilities read
-- neither x nor c; a constraint that reads x or c is the budget c <= R
-- (then the savings grid starts at 0, the limit it sets); every target
-- that carries x solves by EGM too, or is terminal without actions (its
-- marginal value of x is part of its solution).  Age specialisation of x
-- and Epstein-Zin preferences are not supported with it yet.  Sharding and
-- splay need nothing of the plan: a worker's table makes the rows of its
-- block only (gen/emit_egm.c), a launch's chunk reads its rows of the
-- table made once per period, and the marginal values travel with V
-- (runtime/solve/solver.c).
--
-- The same analysis, as a probe (E.plan's last argument), gives a regime
-- that solves by grid search its consumption-saving margin, for the Euler
-- errors of its solution: the checks are the same but the savings grid's
-- (it has none), a target carrying x must be a non-terminal regime with a
-- margin for x itself or a terminal one without actions whose utility has
-- a derivative by x (E.plan returns their names in `requires`; build.lua
-- drops the margins whose targets lack one, and gives such a terminal
-- regime the node d utility / d x for the Euler errors alone, which no
-- kernel reads), and nothing is warned.  Where
-- a check fails the probe returns nil and the reason.  Both modes add
-- dresources = d resources / d x: the marginal value of x at the optimum is
-- marginal(c*) * dresources (the envelope theorem).

local T = require("lcm.trace")
local lcm = require("lcm")
local Diff = require("lcm.diff")
local Inverse = require("lcm.inverse")

local E = {}

local MAX_OTHERS = 6 -- continuous states besides the liquid one (gen/emit_egm.c: 2^6 corners)

local function is_continuous(g)
  return g.kind ~= "discrete" and g.kind ~= "process"
end

-- A test of traced values (numbers reach nothing): does x reach one of
-- the nodes in `leaves`?
local function reaches(leaves)
  local f = T.reaches(leaves)
  return function(x) return T.is_sym(x) and f(x.id) end
end

-- The regime's liquid state and action: named by the solver, or the one
-- continuous state (not a process) and the last continuous action.  The
-- action is the regime's last: the actions before it, discrete or
-- continuous, EGM enumerates on their grids (nested EGM, Druedahl 2021:
-- the endogenous grid has a row per combination of them, and the kernel
-- loops over them as grid search does).
-- The continuous states whose next value reads action ai in some target:
-- a probe's liquid state among several (the one savings feed).
local function fed_by(R, D, ai)
  local on_c = reaches({ [T.var("action", ai - 1, { name = R.actions[ai].name }).id] = true })
  local fed = {}
  for _, tg in ipairs(D.targets) do
    for _, nx in ipairs(tg.next) do
      local si = R.state_index[nx[1]]
      if si and is_continuous(R.states[si].grid) and nx[2].kind == "det" and on_c(nx[2].value) then fed[si] = true end
    end
  end
  return fed
end

local function margin(R, S, fail, probe, D)
  local function pick(list, index, kind, given) -- kind: "state" or "action"
    if given then
      local i = index[given]
      if not i then fail("'" .. given .. "' is not " .. (kind == "state" and "a" or "an") .. " " .. kind ..
        " of the regime") end
      return i
    end
    local found
    for i, v in ipairs(list) do
      if is_continuous(v.grid) then
        if found and kind == "state" then
          fail("the regime has more than one continuous " .. kind .. " ('" .. list[found].name .. "', '" .. v.name ..
            "'): name the one EGM solves for (" .. kind .. " = \"...\")")
        end
        found = i -- the actions: the last continuous one
      end
    end
    if not found then fail("the regime has no continuous " .. kind .. " for the endogenous grid method") end
    return found
  end
  -- a probe names the action first: the continuous actions are what rule out most regimes
  local ai = probe and pick(R.actions, R.action_index, "action", S.action)
  local si
  if probe and not S.state then -- among several continuous states, the one the action's savings feed
    local fed, names = fed_by(R, D, ai), {}
    for i, v in ipairs(R.states) do
      if is_continuous(v.grid) then
        names[#names + 1] = "'" .. v.name .. "'"
        if fed[i] then
          if si then fail("the next values of '" .. R.states[si].name .. "' and '" .. v.name .. "' both read '" ..
            R.actions[ai].name .. "': there is no one liquid state") end
          si = i
        end
      end
    end
    if not si and #names > 1 then
      fail("no continuous state (" .. table.concat(names, ", ") .. ") has a next value that reads '" ..
        R.actions[ai].name .. "'")
    end
  end
  si = si or pick(R.states, R.state_index, "state", S.state)
  ai = ai or pick(R.actions, R.action_index, "action", S.action)
  local sg, ag = R.states[si].grid, R.actions[ai].grid
  if not is_continuous(sg) or sg.kind == "by_age" then
    fail("the liquid state '" .. R.states[si].name .. "' must be a continuous grid fixed over ages (not " ..
      (sg.kind == "by_age" and "lcm.by_age" or "a " .. sg.kind .. " grid") .. ")")
  end
  if not is_continuous(ag) then fail("the action '" .. R.actions[ai].name .. "' is discrete; EGM solves for a continuous one") end
  local an = R.actions[ai].name
  if ai ~= #R.actions then
    fail("the action '" .. an .. "' EGM solves for is not the regime's last action ('" .. R.actions[#R.actions].name ..
      "' is): EGM enumerates the actions before it on their grids, so list '" .. an .. "' last among the actions " ..
      "(actions = { {\"name\", grid}, ... } keeps their order, discrete ones first; a table keyed by names orders " ..
      "them alphabetically)")
  end
  for i, v in ipairs(R.actions) do
    if i ~= ai and is_continuous(v.grid) and R.taste then
      fail("taste shocks with the continuous action '" .. v.name .. "' enumerated beside '" .. an .. "' (nested " ..
        "EGM) are not supported yet: the taste shocks' logit is over the discrete choices")
    end
  end
  local others = 0 -- continuous states besides x: the endogenous grid's rows between their points, 2^others
  for i, v in ipairs(R.states) do
    if i ~= si and v.grid.kind ~= "discrete" then others = others + 1 end
  end
  if others > MAX_OTHERS then
    fail("the regime has " .. others .. " continuous states besides '" .. R.states[si].name .. "'; EGM takes at most " ..
      MAX_OTHERS .. " (a subject between their points reads 2^n rows of the endogenous grid)")
  end
  return si, ai
end

-- The node savings = R - c that the next value of x goes through.
local function savings_node(next_x, c, on_c, fail)
  local found
  for _, i in ipairs(T.reachable(next_x.id)) do
    local n = T.node(i)
    if n.op == "sub" and n.args[2] == c.id and not on_c(T.sym(n.args[1])) then
      if found and found ~= i then fail("two different savings (resources - consumption) nodes") end
      found = i
    end
  end
  return found
end

-- Q = utility + delta * E_next_V: delta, or nil.
local function discount_of(q, utility, enext_id)
  if not T.is_sym(q) then return nil end
  local n = T.node(q.id)
  if n.op ~= "add" then return nil end
  local u_id = T.is_sym(utility) and utility.id or T.const_id(utility)
  local other
  if n.args[1] == u_id then other = n.args[2] elseif n.args[2] == u_id then other = n.args[1] else return nil end
  if other == enext_id then return 1.0 end
  local o = T.node(other)
  if o.op ~= "mul" then return nil end
  if o.args[1] == enext_id then return T.sym(o.args[2]) end
  if o.args[2] == enext_id then return T.sym(o.args[1]) end
  return nil
end

-- The name of the liquid state of a regime with solver = lcm.egm{...}: the
-- one it names, or its one continuous state (nil when that is not one: the
-- plan says why).
function E.liquid_state(R)
  local S = R.spec.solver
  if S.state then return S.state end
  local found
  for _, v in ipairs(R.states) do
    if is_continuous(v.grid) then
      if found then return nil end
      found = v.name
    end
  end
  return found
end

-- A terminal regime without actions that carries the liquid state keeps its
-- marginal value, d utility / d x (the EGM regimes that move into it read
-- it); build.lua marks it with marginal_of before tracing.  With name (the
-- state) and fail(msg) given, the same for the Euler errors of grid-search
-- regimes that move into it (build.lua, after tracing: euler_marginal_of).
function E.terminal_marginal(R, D, name, fail)
  name = name or R.marginal_of
  local si = R.state_index[name]
  local x = T.var("state", si - 1, { name = name })
  local u = T.is_sym(D.utility) and D.utility.id or T.const_id(D.utility)
  return Diff.derivative(u, x.id, fail or function(msg)
    error(R.where .. ": regime '" .. R.name .. "': the marginal utility of '" .. R.marginal_of .. "' (for the " ..
      "endogenous grid method of a regime moving here): " .. msg, 0)
  end)
end

-- A jump or a concave kink of next x in savings (a condition on savings,
-- floor, ceil, mod, integer division, min) puts optima at it, where no
-- Euler equation holds: EGM's candidates miss them (grid search does not).
-- Convex kinks (max, abs: a floor under next wealth) are never optimal.
local JUMPS = { floor = true, ceil = true, mod = true, idiv = true, min = true }
local function warn_jumps(nx, a, xn, regime, ctx, where)
  local on_a = T.reaches({ [a.id] = true })
  for _, i in ipairs(T.reachable(nx.id)) do
    local n = T.node(i)
    if on_a(i) and (JUMPS[n.op] or n.type == "bool") then
      local what = n.type == "bool" and "a condition on savings ('" .. n.op .. "')" or "'" .. n.op .. "'"
      T.warn(where .. ": " .. ctx .. ": the next " .. xn .. " in regime '" .. regime .. "' goes through " .. what ..
        ", a jump or kink in savings; EGM does not see optima at it (compare with grid search)")
      return true
    end
  end
  return false
end

-- The error a probe's checks raise: its reason, caught in E.plan.
local Refused = {}

-- R: the regime being built (build.lua's), D: its trace, M: the model,
-- where(fn): a function's source location, fail_at(where, msg).  With
-- probe (a regime without solver): the margin, or nil and the reason why
-- the regime has none.
function E.plan(R, D, M, where_of, fail_at, probe)
  if not probe then return E.analyse(R, D, M, where_of, fail_at) end
  local ctx = "regime '" .. R.name .. "': "
  local ok, P = pcall(E.analyse, R, D, M, where_of, function(_, msg)
    if msg:sub(1, #ctx) == ctx then msg = msg:sub(#ctx + 1) end
    error(setmetatable({ reason = msg }, Refused), 0)
  end, true)
  if ok then return P end
  if getmetatable(P) == Refused then return nil, P.reason end
  error(P, 0)
end

-- E.plan's analysis; probe as there (fail_at then raises a Refused).
function E.analyse(R, D, M, where_of, fail_at, probe)
  local S = R.spec.solver or {}
  local ctx = "regime '" .. R.name .. "'" .. (probe and "" or ", solver = lcm.egm")
  local function fail(msg) fail_at(S.where, ctx .. ": " .. msg) end
  if R.terminal then fail("a terminal regime has no continuation to solve by EGM") end
  if R.spec.risk_aversion then fail("Epstein-Zin preferences (risk_aversion) are not yet supported with EGM") end
  local si, ai = margin(R, S, fail, probe, D)
  local xv, cv = R.states[si], R.actions[ai]
  local x = T.var("state", si - 1, { name = xv.name })
  local c = T.var("action", ai - 1, { name = cv.name })
  local on_x, on_c = reaches({ [x.id] = true }), reaches({ [c.id] = true })
  local on_xc = reaches({ [x.id] = true, [c.id] = true })
  local xn, cn = "'" .. xv.name .. "'", "'" .. cv.name .. "'"

  if on_x(D.utility) then
    fail("utility depends on the liquid state " .. xn .. "; EGM needs utility of the action and the other states")
  end
  if D.taste ~= nil and on_x(D.taste) then
    fail_at(where_of(R.taste.scale), ctx .. ": the taste-shock scale depends on the liquid state " .. xn ..
      "; EGM's marginal value of " .. xn .. " treats the scale as constant in " .. xn .. " (let it read " ..
      "parameters, age or the other states)")
  end
  -- the next value of x in every target that carries it: through one savings node
  local sav, carriers, requires = nil, {}, {}
  for _, tg in ipairs(D.targets) do
    local TR = M.regime_by_name[tg.regime]
    for _, nx in ipairs(tg.next) do
      local name, spec = nx[1], nx[2]
      local what = "the next " .. (name == xv.name and xn or "'" .. name .. "'") .. " in regime '" .. tg.regime .. "'"
      if name == xv.name then
        local TS = TR.spec.solver
        if probe then -- a target's margin for x: build.lua checks it once all regimes are traced
          if TR.terminal and #TR.actions > 0 then
            fail("it can move to the terminal regime '" .. tg.regime .. "', which carries " .. xn .. " and has " ..
              "actions (the marginal value of " .. xn .. " there is d utility / d " .. xn .. " only without actions)")
          elseif TR.terminal and not is_continuous(TR.states[TR.state_index[xv.name]].grid) then
            fail("it can move to the terminal regime '" .. tg.regime .. "', where " .. xn .. " is not continuous")
          end
          requires[#requires + 1] = tg.regime -- a terminal one: d utility / d x there (build.lua)
        elseif TR.terminal and TR.marginal_of ~= xv.name then
          fail("it can move to the terminal regime '" .. tg.regime .. "', which carries " .. xn .. " and has " ..
            "actions: EGM needs the marginal value of " .. xn .. " there, which a terminal regime keeps only " ..
            "without actions")
        elseif not TR.terminal and not TS then
          fail("it can move to regime '" .. tg.regime .. "', which carries " .. xn .. " but solves by grid search: " ..
            "EGM needs the marginal value of " .. xn .. " there, which only an EGM regime computes (give '" ..
            tg.regime .. "' solver = lcm.egm{...} too)")
        elseif TS and E.liquid_state(TR) ~= xv.name then
          fail("regime '" .. tg.regime .. "' solves by EGM for another state than " .. xn)
        end
        if spec.kind ~= "det" or not on_c(spec.value) then
          fail(what .. " does not depend on " .. cn .. ": nothing for EGM to solve")
        end
        local s = savings_node(spec.value, c, on_c, fail)
        if not s then
          fail(what .. " must read " .. xn .. " and " .. cn .. " through savings = resources - " .. cv.name ..
            " (write it as f(" .. xv.name .. " - " .. cv.name .. "), or from a function savings = " .. xv.name ..
            " - " .. cv.name .. ")")
        end
        if sav and sav ~= s then fail("the next " .. xn .. " goes through different savings in different targets") end
        sav = s
        carriers[#carriers + 1] = { regime = tg.regime, value = spec.value }
      elseif spec.kind == "det" and on_xc(spec.value) then
        fail(what .. " depends on " .. xn .. " or " .. cn .. "; EGM needs the other next states known before the choice")
      elseif spec.kind == "markov" then
        for _, p in ipairs(spec.probs) do
          if on_xc(p) then fail("the probabilities of " .. what .. " depend on " .. xn .. " or " .. cn) end
        end
      end
    end
  end
  for _, p in ipairs(D.rprob) do
    if on_xc(p[2]) then
      fail("the probability of moving to regime '" .. p[1] .. "' depends on " .. xn .. " or " .. cn ..
        "; EGM needs it known before the choice")
    end
  end
  if not sav then
    fail("none of the regimes it can move to carries " .. xn .. ", so there are no savings for EGM to solve for " ..
      "(leave out solver: grid search)")
  end
  local resources = T.sym(T.node(sav).args[1])
  -- constraints: the budget c <= R, or ones that read neither x nor c
  local budget = false
  for _, cn_v in ipairs(D.constraints) do
    local v = cn_v[2]
    if on_xc(v) then
      local n = T.is_sym(v) and T.node(v.id)
      local ok = n and ((n.op == "le" and n.args[1] == c.id and n.args[2] == resources.id) or
        (n.op == "ge" and n.args[2] == c.id and n.args[1] == resources.id))
      local strict = n and ((n.op == "lt" and n.args[1] == c.id and n.args[2] == resources.id) or
        (n.op == "gt" and n.args[2] == c.id and n.args[1] == resources.id))
      if strict then
        fail("constraint '" .. cn_v[1] .. "' is a strict budget (" .. cv.name .. " < resources); EGM's corner " ..
          "spends the resources down to the savings grid's first point, so write it " .. cv.name ..
          ":le(resources) and start the savings grid at the least saving allowed")
      elseif not ok then
        fail("constraint '" .. cn_v[1] .. "' reads " .. xn .. " or " .. cn .. " but is not the budget " .. cv.name ..
          " <= resources: EGM sets limits by its savings grid")
      end
      budget = true
    end
  end
  local first = probe and 0 or
    (S.savings.kind == "irregular" and S.savings.points[1] or S.savings.start or S.savings.pieces[1].lo)
  if budget and first ~= 0 then
    fail("a budget constraint makes savings >= 0, so the savings grid must start at 0 (it starts at " ..
      lcm._num(first) .. ")")
  end
  -- Q = utility + delta * E_next_V
  local enext
  for i, n in ipairs(T.get_graph().nodes) do if n.op == "enext" then enext = i end end
  local delta = enext and discount_of(D.q, D.utility, enext)
  if delta == nil or on_xc(delta) or reaches({ [enext] = true })(delta) then
    fail("EGM needs the aggregator utility + discount * E_next_V (the default H), with a discount that reads " ..
      "neither " .. xn .. " nor " .. cn)
  end
  -- marginal utility and its inverse
  local function diff_fail(msg) fail("marginal utility of " .. cn .. ": " .. msg) end
  local mu = Diff.derivative(T.is_sym(D.utility) and D.utility.id or T.const_id(D.utility), c.id, diff_fail)
  if type(mu) == "number" or not on_c(mu) then
    fail("the marginal utility of " .. cn .. " does not depend on it (utility linear in " .. cn ..
      "): the Euler equation has no solution to invert; use grid search")
  end
  local m = T.var("egm_marginal")
  local ok, policy = pcall(Inverse.inverse, mu, c, m)
  if not ok then
    local why = tostring(policy):match("lcm%.inverse: (.*)$") or tostring(policy)
    fail_at(where_of(R.functions.utility), ctx .. ": the marginal utility of " .. cn .. " has no closed-form " ..
      "inverse: " .. why)
  end
  local a = T.var("egm_savings")
  local next, warned = {}, false
  for _, cr in ipairs(carriers) do
    local nx = T.substitute(cr.value.id, sav, a.id)
    if on_xc(nx) then
      fail("the next " .. xn .. " in regime '" .. cr.regime .. "' reads " .. xn .. " or " .. cn ..
        " besides savings = resources - " .. cv.name)
    end
    warned = warned or probe or warn_jumps(nx, a, xn, cr.regime, ctx, S.where)
    local d = Diff.derivative(nx.id, a.id, fail)
    local k = type(d) == "number" and d or (T.node(d.id).op == "const" and T.node(d.id).k)
    if k and not (k > 0) then
      fail("the next " .. xn .. " in regime '" .. cr.regime .. "' does not increase with savings (its derivative " ..
        "is " .. lcm._num(k) .. "): the Euler equation has no solution to invert; use grid search")
    end
    next[cr.regime] = { nx, d }
  end
  local P = { where = S.where, ctx = ctx, state = si - 1, action = ai - 1, state_name = xv.name, action_name = cv.name, savings = S.savings,
    resources = resources, discount = delta, marginal = mu, policy = policy, next = next, requires = requires }
  -- a probe's checks include it; EGM's, where its regime's nodes are written (E.dresources)
  if probe then P.dresources = E.dresources(P, fail_at) end
  return P
end

-- d resources / d x of plan P (a traced value or a number): the nodes it
-- adds come after the regime's others, so that the kernels' node ids stay
-- those of the model without it (build.lua's dag_data calls it last).
function E.dresources(P, fail_at)
  local x = T.var("state", P.state, { name = P.state_name })
  return Diff.derivative(P.resources.id, x.id, function(msg)
    fail_at(P.where, P.ctx .. ": d resources / d '" .. P.state_name .. "': " .. msg)
  end)
end

return E
