-- Wrong on purpose: a regime transition to an id no regime has, and a
-- Markov state row with one probability too many.
local lcm = require("lcm")
local R = lcm.categorical{ "alive", "dead" }
local H = lcm.categorical{ "bad", "good" }
local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = { health = lcm.discrete(H), wealth = lcm.linspace{ start = 1, stop = 10, n_points = 3 } },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 3 } },
  functions = { utility = function(consumption) return math.log(consumption) end },
  state_transitions = {
    health = lcm.markov(function(health) return { 0.5, 0.3, 0.2 } end),
    wealth = function(wealth, consumption) return wealth - consumption end,
  },
  transition = function(age) return lcm.where(age:ge(1), 7, R.alive) end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 2 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
