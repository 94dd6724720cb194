-- Broken on purpose: fixed_params names `interst_rate`, which no function
-- uses (a typo for interest_rate).
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = { utility = function(wealth, interest_rate) return wealth * (1 + interest_rate) end },
}

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regimes = { dead = dead },
  fixed_params = { interest_rate = 0.04, interst_rate = 0.04 },
}
