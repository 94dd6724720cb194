-- A template for grid cases: GRID is replaced by the case's grid expression.
local lcm = require("lcm")
local only = lcm.regime{
  terminal = true,
  states = { wealth = GRID },
  functions = { utility = function(wealth) return wealth end },
}
return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { only = only } }
