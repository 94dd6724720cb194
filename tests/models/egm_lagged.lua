-- egm_lagged.lua - cake eating whose liquid state is last period's savings:
-- resources = gross * a_lag, so d resources / d a_lag = gross (not 1), and
-- the marginal value of a_lag that the endogenous grid method keeps for
-- the period before is marginal utility times gross (the envelope theorem;
-- gen/dsl/egm_plan.lua's dresources).  Log utility; the terminal regime
-- eats the resources.  Closed form (tests/unit/test_margin.c): eating the
-- share 1 / B_t of the resources, B_t = 1 + beta B_{t+1}, B_{T-1} = 1, and
--   V_t(a) = B_t log(gross a) + A_t,
-- so V_t(a) - V_t(a') = B_t log(a / a') whatever gross.
--
-- Options: n_periods (5), gross (1.5), a_points (200) on [1, 100],
-- savings_points (400) on [0, 150], solver (egm, or grid: grid search over
-- consumption_points (4000)).
local lcm = require("lcm")

local T = lcm.option("n_periods", 5)
local gross = lcm.option("gross", 1.5)
local solver = lcm.option("solver", "egm")
if solver ~= "grid" and solver ~= "egm" then error("option solver must be grid or egm, not '" .. solver .. "'", 0) end
local R = lcm.categorical{ "eating", "last_bite" }
local a_lag = lcm.linspace{ start = 1, stop = 100, n_points = lcm.option("a_points", 200) }

local eating = lcm.regime{
  active = function(age) return age < T - 1 end,
  states = { a_lag = a_lag },
  actions = { consumption = lcm.linspace{ start = 0.01, stop = 150, n_points = lcm.option("consumption_points", 4000) } },
  functions = {
    resources = function(a_lag) return gross * a_lag end,
    utility = function(consumption) return math.log(consumption) end,
  },
  constraints = { budget = function(consumption, resources) return consumption:le(resources) end },
  state_transitions = {
    a_lag = function(resources, consumption) return resources - consumption end,
  },
  transition = function(age) return lcm.where(age:ge(T - 2), R.last_bite, R.eating) end,
  solver = solver == "egm" and lcm.egm{
    savings = lcm.linspace{ start = 0, stop = 150, n_points = lcm.option("savings_points", 400) } } or nil,
}

local last_bite = lcm.regime{
  terminal = true,
  active = function(age) return age == T - 1 end,
  states = { a_lag = a_lag },
  functions = { utility = function(a_lag) return math.log(gross * a_lag) end },
}

return lcm.model{
  name = "egm_lagged",
  ages = lcm.ages{ start = 0, n_periods = T },
  regime_ids = R,
  regimes = { eating = eating, last_bite = last_bite },
}
