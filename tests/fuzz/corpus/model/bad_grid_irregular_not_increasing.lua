-- Broken on purpose: the wealth grid has irregular points that do not increase (2 after 5).
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.irregular{ points = { 0, 5, 2, 8 } } },
  functions = { utility = function(wealth) return wealth end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
