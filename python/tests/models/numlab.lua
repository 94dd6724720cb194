local lcm = require("lcm")
local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }
local Size = lcm.categorical{ "1", "2", "3", name = "Size" }
local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = {
    size = lcm.discrete(Size),
    wealth = lcm.linspace{ start = 1, stop = 10, n_points = 10 },
  },
  actions = {
    consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 20 },
  },
  functions = {
    utility = function(consumption, size, risk_aversion)
      return (size + 1) * consumption ^ (1 - risk_aversion) / (1 - risk_aversion)
    end,
  },
  constraints = {
    budget = function(consumption, wealth) return consumption:le(wealth) end,
  },
  state_transitions = {
    size = lcm.fixed,
    wealth = function(wealth, consumption, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + 1
    end,
  },
  transition = function(age)
    return lcm.where(age:ge(1), Regime.dead, Regime.alive)
  end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ name = "numlab", ages = lcm.ages{ start = 0, stop = 2, step = 1 }, regime_ids = Regime,
  regimes = { alive = alive, dead = dead } }
