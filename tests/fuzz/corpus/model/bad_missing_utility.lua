-- Broken on purpose: regime `dead` has no `utility` function (it is spelt `utilty`).
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  functions = { utilty = function() return 0 end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
