-- Broken on purpose: `alive` is not terminal but has no transition.
local lcm = require("lcm")

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  functions = { utility = function() return 1 end },
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { alive = alive, dead = dead } }
