-- Broken on purpose (found by the solve): the regime transition
-- probabilities of `alive` sum to 0.9 (0.6 + 0.3), not 1.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  functions = { utility = function() return 1 end },
  transition = lcm.markov(function(age)
    return { alive = lcm.where(age:ge(1), 0, 0.6), dead = lcm.where(age:ge(1), 1, 0.3) }
  end),
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 2 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
