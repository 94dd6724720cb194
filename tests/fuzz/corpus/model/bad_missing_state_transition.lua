-- Broken on purpose: `working` can move to `retired`, which has the state
-- `health`, but `working` gives no state_transitions.health.
local lcm = require("lcm")

local Regime = lcm.categorical{ "working", "retired", name = "Regime" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }

local working = lcm.regime{
  active = function(age) return age < 1 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = { utility = function(wealth) return wealth end },
  state_transitions = { wealth = function(wealth) return wealth end },
  transition = function() return Regime.retired end,
}

local retired = lcm.regime{
  terminal = true,
  states = {
    health = lcm.discrete(Health),
    wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 },
  },
  functions = { utility = function(wealth, health) return wealth + health end },
}

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { working = working, retired = retired },
}
