-- Broken on purpose: regime_ids names `retired`, but the regimes table has
-- `alive` and `dead`.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "retired", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  functions = { utility = function() return 1 end },
  transition = function() return 1 end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
