-- Wrong: a shock process listed in state_transitions (its transition is part of it).
local lcm = require("lcm")
local R = lcm.categorical{ "alive", "dead" }
local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = { income = lcm.rouwenhorst_ar1{ n_points = 3, rho = 0.9, sigma = 0.1, mu = 0 } },
  functions = { utility = function(income) return income end },
  state_transitions = { income = function(income) return income end },
  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 2 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
