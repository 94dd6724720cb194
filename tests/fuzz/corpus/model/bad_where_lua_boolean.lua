-- Broken on purpose: lcm.where gets a Lua boolean.  `age == 1` compares a
-- traced value with a number, which Lua evaluates to false (no __eq), so the
-- condition is the plain boolean `false`; the model must write age:eq(1).
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  functions = { utility = function() return 1 end },
  transition = function(age) return lcm.where(age == 1, Regime.dead, Regime.alive) end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 2 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
