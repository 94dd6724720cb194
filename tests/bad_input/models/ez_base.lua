-- Shared by the risk_aversion_* cases: a two-period saving choice whose
-- alive regime takes the risk_aversion field given by the case (and, for
-- power_mean, the aggregator H).
local lcm = require("lcm")

return function(spec)
  local R = lcm.categorical{ "alive", "dead", name = "Regime" }
  local functions = spec.functions or {}
  functions.utility = functions.utility or function(consumption) return consumption end
  local alive = lcm.regime{
    active = function(age) return age < 1 end,
    states = { wealth = lcm.linspace{ start = 1, stop = 2, n_points = 3 } },
    actions = { consumption = lcm.linspace{ start = 0.5, stop = 1, n_points = 3 } },
    functions = functions,
    transition = function() return R.dead end,
    state_transitions = { wealth = function(wealth, consumption) return wealth - consumption end },
    risk_aversion = spec.risk_aversion,
  }
  local dead = lcm.regime{
    terminal = true,
    states = { wealth = lcm.linspace{ start = 0, stop = 2, n_points = 3 } },
    functions = { utility = function(wealth) return wealth end },
    risk_aversion = spec.dead_risk_aversion,
  }
  return lcm.model{
    ages = lcm.ages{ start = 0, stop = 1 },
    regime_ids = R,
    regimes = { alive = alive, dead = dead },
  }
end
