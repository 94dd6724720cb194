-- Broken on purpose: `alive` is not terminal but is active at every age,
-- the last one (1) included (no `active` function).
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  functions = { utility = function() return 1 end },
  transition = function() return Regime.dead end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
