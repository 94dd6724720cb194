-- Broken on purpose: nine states splayed (0 < batch_size < n_points) in one
-- regime, where the kernels hold the chunks of eight.  A batch_size of
-- n_points or more is one chunk, not a splay, so `whole` does not count.
local lcm = require("lcm")

local states = { whole = lcm.linspace{ start = 1, stop = 2, n_points = 4, batch_size = 4 } }
for i = 1, 9 do states["s" .. i] = lcm.linspace{ start = 1, stop = 2, n_points = 4, batch_size = 2 } end

local dead = lcm.regime{
  terminal = true,
  states = states,
  functions = { utility = function(s1, whole) return s1 + whole end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
