-- Wrong: a shock process as an action.
local lcm = require("lcm")
local only = lcm.regime{
  terminal = true,
  actions = { shock = lcm.normal_iid{ n_points = 3, gauss_hermite = true, mu = 0, sigma = 1 } },
  functions = { utility = function(shock) return shock end },
}
return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { only = only } }
