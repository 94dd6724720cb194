-- Broken on purpose: a state called `age`, a reserved name.
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { age = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = { utility = function(age) return age end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
