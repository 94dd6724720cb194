-- Broken on purpose: the Markov regime transition gives a probability for
-- `deda`, a typo for the regime `dead`.
local lcm = require("lcm")

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  functions = { utility = function() return 1 end },
  transition = lcm.markov(function() return { deda = 1 } end),
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { alive = alive, dead = dead } }
