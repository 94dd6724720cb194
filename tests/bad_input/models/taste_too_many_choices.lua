-- Broken on purpose: 17 x 17 = 289 combinations of discrete actions carry
-- taste shocks, more than the 256 a regime may have.
local lcm = require("lcm")

local labels = {}
for i = 1, 17 do labels[i] = "c" .. i end
local A = lcm.categorical(labels)
local B = lcm.categorical(labels)

local choose = lcm.regime{
  terminal = true,
  actions = { a = lcm.discrete(A), b = lcm.discrete(B) },
  functions = { utility = function(a, b) return a + b end },
  taste_shocks = lcm.ev1{ scale = function(taste_shock_scale) return taste_shock_scale end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { choose = choose } }
