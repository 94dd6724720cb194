-- Broken on purpose: the wealth grid has n_points is 1 (a grid needs at least 2 points).
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 1 } },
  functions = { utility = function(wealth) return wealth end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
