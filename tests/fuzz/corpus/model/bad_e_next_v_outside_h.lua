-- Broken on purpose: the utility function reads E_next_V, which only the
-- aggregator H may use.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  functions = { utility = function(E_next_V) return 0.5 * E_next_V end },
  transition = function() return Regime.dead end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
