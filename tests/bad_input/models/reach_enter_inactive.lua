-- Broken on purpose (found by lcmgen): `alive` can move to `retired` with
-- the constant probability 0.2, but `retired` is active only at age 0, so
-- it is inactive at every age that follows one where `alive` is active.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "retired", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  functions = { utility = function() return 1 end },
  transition = lcm.markov(function(age)
    return { alive = lcm.where(age:lt(1), 0.5, 0), retired = 0.2, dead = lcm.where(age:lt(1), 0.3, 0.8) }
  end),
}

local retired = lcm.regime{
  terminal = true,
  active = function(age) return age == 0 end,
  functions = { utility = function() return 0 end },
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 2 },
  regime_ids = Regime,
  regimes = { alive = alive, retired = retired, dead = dead },
}
