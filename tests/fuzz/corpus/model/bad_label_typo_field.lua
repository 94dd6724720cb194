-- Broken on purpose: `Health.gud` is a typo for the category `good`.
local lcm = require("lcm")

local Health = lcm.categorical{ "bad", "good", name = "Health" }

local dead = lcm.regime{
  terminal = true,
  states = { health = lcm.discrete(Health) },
  functions = {
    utility = function(health)
      return lcm.where(health:eq(Health.gud), 1, 0)
    end,
  },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
