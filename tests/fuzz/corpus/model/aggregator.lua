-- aggregator.lua - one savings model, three aggregators (option `aggregator`):
--   default    Q = utility + discount_factor * E_next_V (no H given)
--   renamed    H = utility + beta * E_next_V            (must equal default)
--   nonlinear  H = utility + discount_factor * E_next_V - penalty * E_next_V^2
-- tests/integration/test_aggregator.c solves all three.
local lcm = require("lcm")

local which = lcm.option("aggregator", "default")
local R = lcm.categorical{ "saving", "dead" }

local functions = {
  utility = function(consumption) return math.log(consumption) end,
}
if which == "renamed" then
  functions.H = function(utility, E_next_V, beta) return utility + beta * E_next_V end
elseif which == "nonlinear" then
  functions.H = function(utility, E_next_V, discount_factor, penalty)
    return utility + discount_factor * E_next_V - penalty * E_next_V * E_next_V
  end
end

local saving = lcm.regime{
  active = function(age) return age < 4 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 20, n_points = 40 } },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 20, n_points = 80 } },
  functions = functions,
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = { wealth = function(wealth, consumption) return 1.05 * (wealth - consumption) + 1 end },
  transition = function(age) return lcm.where(age:ge(3), R.dead, R.saving) end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 4 },
  regime_ids = R,
  regimes = { saving = saving, dead = dead },
}
