-- Broken on purpose: the terminal regime `dead` has a transition.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  functions = { utility = function() return 1 end },
  transition = function() return Regime.dead end,
}

local dead = lcm.regime{
  terminal = true,
  functions = { utility = function() return 0 end },
  transition = function() return Regime.dead end,
}

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
