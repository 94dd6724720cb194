-- A valid model whose two regimes carry one AR(1) process with run-time
-- parameters: giving them different values per regime is an error at solve time.
local lcm = require("lcm")
local R = lcm.categorical{ "young", "old", "dead" }
local income = lcm.rouwenhorst_ar1{ n_points = 3, mu = 0 }
local young = lcm.regime{
  active = function(age) return age < 1 end,
  states = { income = income },
  functions = { utility = function(income) return income end },
  transition = function() return R.old end,
}
local old = lcm.regime{
  active = function(age) return age == 1 end,
  states = { income = income },
  functions = { utility = function(income) return income end },
  transition = function() return R.dead end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 2 }, regime_ids = R, regimes = { young = young, old = old, dead = dead } }
