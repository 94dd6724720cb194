-- Broken on purpose: Lua `==` between a traced value and a number.  Lua never
-- calls __eq for a table and a number, so `health == 1` is simply false while
-- tracing and `health` never reaches the result.
local lcm = require("lcm")

local Health = lcm.categorical{ "bad", "good", name = "Health" }

local dead = lcm.regime{
  terminal = true,
  states = { health = lcm.discrete(Health) },
  functions = {
    utility = function(health)
      if health == 1 then return 1 end
      return 0
    end,
  },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
