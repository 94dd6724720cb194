-- Broken on purpose (a warning of the solve): utility = 1 / (wealth - 1) is
-- +inf at wealth = 1, so V is +inf there.
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 10 } },
  functions = { utility = function(wealth) return 1 / (wealth - 1) end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
