-- Broken on purpose: regime `alive` has a function called `dead`, the name
-- of a regime.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  functions = {
    dead = function() return 0 end,
    utility = function(dead) return 1 + dead end,
  },
  transition = function() return Regime.dead end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
