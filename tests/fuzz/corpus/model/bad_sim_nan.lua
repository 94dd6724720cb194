-- Fine on its grid (wealth 1..10), NaN below zero wealth: a simulated
-- subject starting at negative wealth gets a NaN V.
local lcm = require("lcm")
local R = lcm.categorical{ "alive", "dead" }
local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 10 } },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 5, n_points = 10 } },
  functions = { utility = function(consumption, wealth) return math.log(consumption) + math.log(wealth) end },
  state_transitions = { wealth = function(wealth, consumption) return wealth - consumption + 2 end },
  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 2 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
