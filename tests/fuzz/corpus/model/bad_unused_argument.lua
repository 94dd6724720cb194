-- Broken on purpose: the utility function takes `health` but never uses it.
local lcm = require("lcm")

local Health = lcm.categorical{ "bad", "good", name = "Health" }

local dead = lcm.regime{
  terminal = true,
  states = {
    health = lcm.discrete(Health),
    wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 },
  },
  functions = {
    utility = function(wealth, health)
      return math.log(wealth)
    end,
  },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
