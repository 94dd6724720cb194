-- Broken on purpose: the Markov transition of `health` (2 categories: bad,
-- good) returns a list of 3 probabilities.
local lcm = require("lcm")

local Health = lcm.categorical{ "bad", "good", name = "Health" }
local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = { health = lcm.discrete(Health) },
  functions = { utility = function(health) return lcm.where(health:eq("good"), 1, 0) end },
  state_transitions = {
    health = lcm.markov(function(health)
      return { lcm.where(health:eq("good"), 0.1, 0.5), 0.4, 0.1 }
    end),
  },
  transition = function(age) return lcm.where(age:ge(1), Regime.dead, Regime.alive) end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 2 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
