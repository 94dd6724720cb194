-- Broken on purpose (a warning of the solve): at wealth 1 and 2 no
-- consumption satisfies consumption <= wealth - 2, so V = -inf there.
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 10 } },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 5, n_points = 10 } },
  functions = { utility = function(consumption) return math.log(consumption) end },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth - 2) end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
