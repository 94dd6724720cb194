-- Broken on purpose: the wealth grid has a typo: n_point instead of n_points.
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_point = 5 } },
  functions = { utility = function(wealth) return wealth end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
