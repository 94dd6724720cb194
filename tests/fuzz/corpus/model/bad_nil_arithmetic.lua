-- Broken on purpose: the utility function does arithmetic with a misspelt
-- local (`risk_aversoin` is an undefined global, so nil) - a Lua runtime error
-- while the function is traced.
local lcm = require("lcm")

local risk_aversion = 2

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = {
    utility = function(wealth)
      return wealth ^ (1 - risk_aversoin)
    end,
  },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
