-- Wrong: 10^6 x 10^6 x 10^5 states, more than lcm can index.
local lcm = require("lcm")
local g = function(n) return lcm.linspace{ start = 0, stop = 1, n_points = n } end
local only = lcm.regime{
  terminal = true,
  states = { a = g(1000000), b = g(1000000), c = g(100000) },
  functions = { utility = function(a, b, c) return a + b + c end },
}
return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { only = only } }
