-- Wrong: a sharded state (distributed = true) with a Markov transition;
-- only fixed states can be sharded.
local lcm = require("lcm")
local R = lcm.categorical{ "alive", "dead" }
local Health = lcm.categorical{ "bad", "good" }
local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = { health = lcm.discrete(Health, { distributed = true }) },
  functions = { utility = function(health) return health end },
  state_transitions = {
    health = lcm.markov(function(health) return { bad = 0.5, good = 0.5 } end),
  },
  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 2 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
