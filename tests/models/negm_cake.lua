-- negm_cake.lua - a small durable-goods model in the spirit of Druedahl
-- (2021)'s (models/durables.lua) with two continuous choices, for nested
-- EGM (NEGM): the liquid wealth and the durable stock n are the states;
-- the actions are adjust (keep or adjust the durable), the new durable d
-- (keeping uses only its first point, by a constraint) and consumption c,
-- listed last: EGM solves c at each combination of adjust and d, which it
-- enumerates on their grids (tests/integration/test_egm.c).
--   resources = wealth + (1 - tau) n - d   when adjusting,   wealth when keeping
--   durable   = d when adjusting, n when keeping
--   u(c, durable) = (c^alpha (durable + d_ubar)^(1 - alpha))^(1 - rho) / (1 - rho)
--   wealth' = (1 + r) (resources - c) + y,   n' = (1 - delta) durable,   c <= resources
-- In the last period (a terminal regime without actions) the agent keeps
-- the durable and consumes the wealth: u(wealth, n).
--
-- Options: n_periods (4), wealth_points (60) on [y, 12], n_points (8) and
-- d_points (8) on [0, 3], savings_points (2 * wealth_points) on [0, 12],
-- solver (egm, or grid: grid search over c_points (1000) of consumption on
-- [0.005, 15], budget c <= resources); wealth_batch and n_batch (0): splay
-- (tests/integration/test_sharding.c: V and panels the same; subjects:
-- negm_cake.initial.csv); durable_rule: which where()s the endogenous
-- grid's plan may decide from the discrete action alone (ir/fold.h,
-- tests/unit/test_precompute.c), the adjuster's durable written as
--   plain    (default) d
--   code     d where (adjust * 2 + 1) == 3, else n: integers, true for an
--            adjuster in every precision, the same model as plain (its
--            entries do not read n and are shared across n's points)
--   decimal  d where (adjust * 0.1 + 0.2) ~= 0.3, else n: true in float64,
--            false in float32 (where an adjuster reads n), so the plan may
--            not decide it and nothing is shared;
-- keep_rule: which durables a keeper's constraint keep_once leaves, which the
-- plan folds to leave the others' entries out of the endogenous grid:
--   plain    (default) d <= 0: the first point alone
--   near     d <= 3/7 less one ulp: also the first alone in float64, but the
--            first two in float32 (d's second point 3/7 and the bound are
--            one float there), so the plan keeps the second point's entries.
local lcm = require("lcm")

local T = lcm.option("n_periods", 4)
local Nw = lcm.option("wealth_points", 60)
local Nn = lcm.option("n_points", 8)
local Nd = lcm.option("d_points", 8)
local solver = lcm.option("solver", "egm")
local durable_rule = lcm.option("durable_rule", "plain")
if durable_rule ~= "plain" and durable_rule ~= "code" and durable_rule ~= "decimal" then
  error("option durable_rule must be plain, code or decimal, not '" .. durable_rule .. "'", 0)
end
local keep_rule = lcm.option("keep_rule", "plain")
if keep_rule ~= "plain" and keep_rule ~= "near" then
  error("option keep_rule must be plain or near, not '" .. keep_rule .. "'", 0)
end
local keep_bound = keep_rule == "near" and 3 / 7 - 2 ^ -54 or 0
local y = 0.5 -- income each period: wealth >= y

local Regime = lcm.categorical{ "alive", "last", name = "Regime" }
local Adjust = lcm.categorical{ "keep", "adjust", name = "Adjust" }

local states = {
  { "wealth", lcm.linspace{ start = y, stop = 12, n_points = Nw, batch_size = lcm.option("wealth_batch", 0) } },
  { "n", lcm.linspace{ start = 0, stop = 3, n_points = Nn, batch_size = lcm.option("n_batch", 0) } },
}

-- an adjuster's durable (durable_rule above)
local function adjusted(adjust, d, n)
  if durable_rule == "plain" then return d end
  local uses_d = durable_rule == "code" and (adjust * 2 + 1):eq(3) or (adjust * 0.1 + 0.2):ne(0.3)
  return lcm.where(uses_d, d, n)
end

local function u(c, durable, alpha, rho, d_ubar)
  return c ^ (alpha * (1 - rho)) * (durable + d_ubar) ^ ((1 - alpha) * (1 - rho)) / (1 - rho)
end

local alive = lcm.regime{
  active = function(age) return age < T - 1 end,
  states = states,
  actions = {
    { "adjust", lcm.discrete(Adjust) },
    { "d", lcm.linspace{ start = 0, stop = 3, n_points = Nd } },
    { "c", lcm.linspace{ start = 0.005, stop = 15, n_points = lcm.option("c_points", 1000) } },
  },
  functions = {
    durable = function(adjust, d, n) return lcm.where(adjust:eq("adjust"), adjusted(adjust, d, n), n) end,
    resources = function(adjust, wealth, n, d, tau)
      return lcm.where(adjust:eq("adjust"), wealth + (1 - tau) * n - d, wealth)
    end,
    utility = u,
  },
  constraints = {
    budget = function(c, resources) return c:le(resources) end,
    keep_once = function(adjust, d) return lcm.any(adjust:eq("adjust"), d:le(keep_bound)) end,
  },
  state_transitions = {
    wealth = function(resources, c, r) return (1 + r) * (resources - c) + y end,
    n = function(durable, delta) return (1 - delta) * durable end,
  },
  transition = function(age) return lcm.where(age:ge(T - 2), Regime.last, Regime.alive) end,
  solver = solver == "egm" and lcm.egm{ state = "wealth", action = "c",
    savings = lcm.linspace{ start = 0, stop = 12, n_points = lcm.option("savings_points", 2 * Nw) } } or nil,
}

local last = lcm.regime{
  terminal = true,
  active = function(age) return age == T - 1 end,
  states = states,
  functions = { utility = function(wealth, n, alpha, rho, d_ubar) return u(wealth, n, alpha, rho, d_ubar) end },
}

return lcm.model{
  name = "negm_cake",
  ages = lcm.ages{ start = 0, n_periods = T },
  regime_ids = Regime,
  regimes = { alive = alive, last = last },
}
