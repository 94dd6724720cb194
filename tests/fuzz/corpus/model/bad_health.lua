-- A valid model (the params_* cases break its parameters, not the model):
-- utility = bonus[health] + log(wealth), a Markov health transition from the
-- array parameter health_transition[health][next_health].
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = {
    health = lcm.discrete(Health),
    wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 },
  },
  functions = {
    utility = function(health, wealth, bonus) return bonus[health] + math.log(wealth) end,
  },
  state_transitions = {
    health = lcm.markov(function(health, health_transition) return health_transition[health] end),
    wealth = lcm.fixed,
  },
  transition = function(age) return lcm.where(age:ge(1), Regime.dead, Regime.alive) end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 2 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
