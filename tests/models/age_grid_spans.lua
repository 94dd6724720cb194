-- age_grid_spans.lua - tests/models/age_grid.lua written without lcm.by_age:
-- one regime per age span (working to age 2, retired from age 3), each
-- with its own wealth grid, income and budget.  The two models have the
-- same V (tests/integration/test_age_specialisation.sh).
local lcm = require("lcm")

local Regime = lcm.categorical{ "working", "retired", "dead", name = "Regime" }

local function utility(consumption, risk_aversion)
  return consumption ^ (1 - risk_aversion) / (1 - risk_aversion)
end

local consumption = lcm.linspace{ start = 0.5, stop = 30, n_points = 60 }

local working = lcm.regime{
  active = function(age) return age < 3 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 25 } },
  actions = { consumption = consumption },
  functions = {
    utility = utility,
    income = function(wage) return wage end,
  },
  constraints = {
    budget = function(consumption, wealth) return consumption:le(wealth) end,
  },
  state_transitions = {
    wealth = function(wealth, consumption, income, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + income
    end,
  },
  transition = function(age)
    return lcm.where(age:ge(2), Regime.retired, Regime.working)
  end,
}

local retired = lcm.regime{
  active = function(age) return age >= 3 and age < 6 end,
  states = { wealth = lcm.logspace{ start = 1, stop = 30, n_points = 25 } },
  actions = { consumption = consumption },
  functions = {
    utility = utility,
    income = function(pension) return pension end,
  },
  constraints = {
    budget = function(consumption, wealth, max_share) return consumption:le(max_share * wealth) end,
  },
  state_transitions = {
    wealth = function(wealth, consumption, income, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + income
    end,
  },
  transition = function(age)
    return lcm.where(age:ge(5), Regime.dead, Regime.retired)
  end,
}

local dead = lcm.regime{
  terminal = true,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "age_grid_spans",
  ages = lcm.ages{ start = 0, stop = 6, step = 1 },
  regime_ids = Regime,
  regimes = { working = working, retired = retired, dead = dead },
}
