-- Broken on purpose: income depends on taxes and taxes on income (a cycle).
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = {
    income = function(wealth, taxes) return wealth - taxes end,
    taxes = function(income) return 0.2 * income end,
    utility = function(income) return income end,
  },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
