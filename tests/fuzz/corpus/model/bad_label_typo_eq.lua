-- Broken on purpose: `health:eq("gud")` names a category Health does not have.
local lcm = require("lcm")

local Health = lcm.categorical{ "bad", "good", name = "Health" }

local dead = lcm.regime{
  terminal = true,
  states = { health = lcm.discrete(Health) },
  functions = {
    utility = function(health)
      return lcm.where(health:eq("gud"), 1, 0)
    end,
  },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
