-- negm_fold.lua - which where()s the endogenous grid's plan may decide from
-- the discrete actions alone (ir/fold.h; tests/unit/test_precompute.c).
-- A durable model in the spirit of negm_cake.lua whose keeper uses its stock
-- n, an adjuster its new durable d where a second condition on the action
-- holds (else n again):
--   condition = "code"     (adjust * 2 + 1) == 3: integers, true for an
--                          adjuster in every precision, so its entries do not
--                          read n and are shared across n's points
--   condition = "decimal"  (adjust * 0.1 + 0.2) ~= 0.3: true in float64,
--                          false in float32 (where an adjuster reads n), so
--                          the plan may not decide it and nothing is shared
-- Parameters: tests/models/negm_cake.params.lua.
local lcm = require("lcm")

local T = 3
local condition = lcm.option("condition", "code")
if condition ~= "code" and condition ~= "decimal" then
  error("option condition must be code or decimal, not '" .. condition .. "'", 0)
end
local y = 0.5

local Regime = lcm.categorical{ "alive", "last", name = "Regime" }
local Adjust = lcm.categorical{ "keep", "adjust", name = "Adjust" }

local states = {
  { "wealth", lcm.linspace{ start = y, stop = 12, n_points = 10 } },
  { "n", lcm.linspace{ start = 0, stop = 3, n_points = 4 } },
}

local function u(c, durable, alpha, rho, d_ubar)
  return c ^ (alpha * (1 - rho)) * (durable + d_ubar) ^ ((1 - alpha) * (1 - rho)) / (1 - rho)
end

local function uses_d(adjust)
  if condition == "code" then return (adjust * 2 + 1):eq(3) end
  return (adjust * 0.1 + 0.2):ne(0.3)
end

local alive = lcm.regime{
  active = function(age) return age < T - 1 end,
  states = states,
  actions = {
    { "adjust", lcm.discrete(Adjust) },
    { "d", lcm.linspace{ start = 0, stop = 3, n_points = 4 } },
    { "c", lcm.linspace{ start = 0.005, stop = 15, n_points = 10 } },
  },
  functions = {
    durable = function(adjust, d, n) return lcm.where(adjust:eq("adjust"), lcm.where(uses_d(adjust), d, n), n) end,
    resources = function(adjust, wealth, n, d, tau)
      return lcm.where(adjust:eq("adjust"), wealth + (1 - tau) * n - d, wealth)
    end,
    utility = u,
  },
  constraints = {
    budget = function(c, resources) return c:le(resources) end,
    keep_once = function(adjust, d) return lcm.any(adjust:eq("adjust"), d:le(0)) end,
  },
  state_transitions = {
    wealth = function(resources, c, r) return (1 + r) * (resources - c) + y end,
    n = function(durable, delta) return (1 - delta) * durable end,
  },
  transition = function(age) return lcm.where(age:ge(T - 2), Regime.last, Regime.alive) end,
  solver = lcm.egm{ state = "wealth", action = "c", savings = lcm.linspace{ start = 0, stop = 12, n_points = 20 } },
}

local last = lcm.regime{
  terminal = true,
  active = function(age) return age == T - 1 end,
  states = states,
  functions = { utility = function(wealth, n, alpha, rho, d_ubar) return u(wealth, n, alpha, rho, d_ubar) end },
}

return lcm.model{ name = "negm_fold", ages = lcm.ages{ start = 0, n_periods = T }, regime_ids = Regime,
  regimes = { alive = alive, last = last } }
