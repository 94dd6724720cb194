-- A valid model with interest_rate fixed in the model (fixed_params); the
-- params_fixed_set case tries to set it anyway.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = { utility = function(wealth, interest_rate) return math.log(wealth * (1 + interest_rate)) end },
  transition = function() return Regime.dead end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
  fixed_params = { interest_rate = 0.04 },
}
