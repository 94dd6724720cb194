-- Broken on purpose: the deterministic regime transition returns 2, but
-- there are only two regimes (ids 0 and 1); it should return Regime.dead.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  functions = { utility = function() return 1 end },
  transition = function() return 2 end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
