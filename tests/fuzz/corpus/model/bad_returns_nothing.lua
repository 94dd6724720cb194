-- Broken on purpose: the model file builds lcm.model{...} but forgets to
-- return it.
local lcm = require("lcm")

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
