-- Broken on purpose: a Lua syntax error (the utility function is missing its `end`).
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  functions = {
    utility = function(wealth)
      return wealth
  },
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
