-- Broken on purpose: `axes` continuous states of `points` points each.
-- Every grid is moderate, but together they make points^axes states (5 x
-- 1000: 1e15 states, 8 PB of V per period), far more than any machine has:
-- the solve is refused before anything is allocated (exit code 10).  (Past
-- 2^53 states, e.g. 7 x 1000, the generator refuses the model.)  Options:
-- axes (5), points (1000).
local lcm = require("lcm")

local axes = lcm.option("axes", 5)
local points = lcm.option("points", 1000)

local states = {}
for i = 1, axes do states["x" .. i] = lcm.linspace{ start = 0, stop = 1, n_points = points } end

local only = lcm.regime{
  terminal = true,
  states = states,
  functions = { utility = function(x1) return x1 end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { only = only } }
