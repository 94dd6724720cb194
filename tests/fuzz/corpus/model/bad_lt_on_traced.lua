-- Broken on purpose: Lua's `<` on a traced value (must be wealth:lt(5)).
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = {
    utility = function(wealth)
      return lcm.where(wealth < 5, 0, wealth)
    end,
  },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
