-- Broken on purpose: a discrete axis is both sharded (distributed = true) and
-- splayed (batch_size = 2).
local lcm = require("lcm")

local Type = lcm.categorical{ "a", "b", "c", "d", name = "Type" }

local dead = lcm.regime{
  terminal = true,
  states = { type = lcm.discrete(Type, { distributed = true, batch_size = 2 }) },
  functions = { utility = function(type) return lcm.where(type:eq("a"), 1, 0) end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
