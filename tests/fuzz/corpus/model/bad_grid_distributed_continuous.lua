-- Broken on purpose: the wealth grid has distributed = true on a continuous grid.
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5, distributed = true } },
  functions = { utility = function(wealth) return wealth end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
