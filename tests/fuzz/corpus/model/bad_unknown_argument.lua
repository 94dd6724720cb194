-- Broken on purpose: utility reads `welth`, a typo for the state `wealth`.
-- The model still builds (an unknown argument name is a parameter), so it is
-- the solve that reports the parameter `welth` as missing.
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = { utility = function(welth) return welth end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
