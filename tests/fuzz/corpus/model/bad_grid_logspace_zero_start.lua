-- Broken on purpose: the wealth grid has a logspace grid starting at 0 (its start must be positive).
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.logspace{ start = 0, stop = 10, n_points = 5 } },
  functions = { utility = function(wealth) return wealth end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
