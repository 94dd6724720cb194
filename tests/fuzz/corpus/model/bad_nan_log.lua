-- Broken on purpose (found by the solve): utility = log(wealth - 5) is NaN
-- for wealth < 5, and every point of the wealth grid is feasible.
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 10 } },
  functions = { utility = function(wealth) return math.log(wealth - 5) end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
