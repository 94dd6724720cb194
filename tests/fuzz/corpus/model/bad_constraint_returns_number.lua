-- Broken on purpose: the constraint `budget` returns a number
-- (wealth - consumption) instead of a condition (consumption:le(wealth)).
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  actions = { consumption = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = { utility = function(consumption) return math.log(consumption) end },
  constraints = { budget = function(consumption, wealth) return wealth - consumption end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
