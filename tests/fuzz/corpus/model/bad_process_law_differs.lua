-- Wrong: 'young' and 'old' carry AR(1) processes of different persistence
-- under one name; the next value depends on the current one, so one law.
local lcm = require("lcm")
local R = lcm.categorical{ "young", "old", "dead" }
local young = lcm.regime{
  active = function(age) return age < 1 end,
  states = { income = lcm.rouwenhorst_ar1{ n_points = 3, rho = 0.9, sigma = 0.1, mu = 0 } },
  functions = { utility = function(income) return income end },
  transition = function() return R.old end,
}
local old = lcm.regime{
  active = function(age) return age == 1 end,
  states = { income = lcm.rouwenhorst_ar1{ n_points = 3, rho = 0.5, sigma = 0.1, mu = 0 } },
  functions = { utility = function(income) return income end },
  transition = function() return R.dead end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 2 }, regime_ids = R, regimes = { young = young, old = old, dead = dead } }
