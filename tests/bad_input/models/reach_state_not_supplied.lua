-- Broken on purpose: `working` has no state `health`, yet its transition
-- into `retired` (which has one) reads `health`, which would silently have
-- been a parameter.
local lcm = require("lcm")

local Regime = lcm.categorical{ "working", "retired", name = "Regime" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }

local working = lcm.regime{
  active = function(age) return age < 1 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 4 } },
  functions = { utility = function(wealth) return math.log(wealth) end },
  state_transitions = {
    wealth = function(wealth) return wealth end,
    health = function(health) return health end,
  },
  transition = function() return Regime.retired end,
}

local retired = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 4 }, health = lcm.discrete(Health) },
  functions = { utility = function(wealth, health) return math.log(wealth) + health end },
}

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { working = working, retired = retired },
}
