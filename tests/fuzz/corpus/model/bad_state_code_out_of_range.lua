-- Broken on purpose (found by the solve): the deterministic next value of
-- `health` (2 categories, codes 0 and 1) is 5 for good health.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = { health = lcm.discrete(Health) },
  functions = { utility = function(health) return lcm.where(health:eq("good"), 1, 0) end },
  state_transitions = {
    health = function(health) return lcm.where(health:eq("good"), 5, 0) end,
  },
  transition = function(age) return lcm.where(age:ge(1), Regime.dead, Regime.alive) end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 2 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
