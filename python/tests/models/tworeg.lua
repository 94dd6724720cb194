local lcm = require("lcm")
local Regime = lcm.categorical{ "young", "old", "dead", name = "Regime" }
local function mk(active, stop, n, nxt)
  return lcm.regime{
    active = active,
    states = { wealth = lcm.linspace{ start = 1, stop = stop, n_points = n } },
    actions = { consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 20 } },
    functions = { utility = function(consumption, risk_aversion) return consumption ^ (1 - risk_aversion) / (1 - risk_aversion) end },
    constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
    state_transitions = { wealth = function(wealth, consumption, interest_rate) return (1 + interest_rate) * (wealth - consumption) + 1 end },
    transition = function() return nxt end,
  }
end
local young = mk(function(age) return age < 1 end, 10, 10, Regime.old)
local old = mk(function(age) return age >= 1 and age < 2 end, 20, 5, Regime.dead)
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ name = "tworeg", ages = lcm.ages{ start = 0, stop = 2, step = 1 }, regime_ids = Regime,
  regimes = { young = young, old = old, dead = dead } }
