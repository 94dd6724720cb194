-- Broken on purpose: the deterministic transition can return `retired`,
-- which is active only from age 3, after `working`'s last move (at age 1).
local lcm = require("lcm")

local Regime = lcm.categorical{ "working", "retired", "dead", name = "Regime" }

local working = lcm.regime{
  active = function(age) return age < 2 end,
  functions = { utility = function() return 1 end },
  transition = function(age) return lcm.where(age:ge(1), Regime.retired, Regime.dead) end,
}

local retired = lcm.regime{
  terminal = true,
  active = function(age) return age >= 3 end,
  functions = { utility = function() return 0 end },
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 3 },
  regime_ids = Regime,
  regimes = { working = working, retired = retired, dead = dead },
}
