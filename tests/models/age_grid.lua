-- age_grid.lua - age specialisation (lcm.by_age): the wealth grid moves
-- with age (a linspace to age 2, a wider logspace from age 3), income is a
-- wage before age 3 and a pension from then on, and the budget constraint
-- tightens with retirement.  tests/models/age_grid_spans.lua writes the
-- same model with one regime per age span; both give the same V
-- (tests/integration/test_age_specialisation.sh).
--   -D splay=true   splays wealth (batch_size 4 at every age)
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }
local RETIREMENT = 3
local batch = lcm.option("splay", false) and 4 or 0

local working_wealth = lcm.linspace{ start = 1, stop = 10, n_points = 25, batch_size = batch }
local retired_wealth = lcm.logspace{ start = 1, stop = 30, n_points = 25, batch_size = batch }

local alive = lcm.regime{
  active = function(age) return age < 6 end,
  states = {
    wealth = lcm.by_age(function(age) return age < RETIREMENT and working_wealth or retired_wealth end),
  },
  actions = {
    consumption = lcm.linspace{ start = 0.5, stop = 30, n_points = 60 },
  },
  functions = {
    utility = function(consumption, risk_aversion)
      return consumption ^ (1 - risk_aversion) / (1 - risk_aversion)
    end,
    income = lcm.by_age(function(age)
      if age < RETIREMENT then return function(wage) return wage end end
      return function(pension) return pension end
    end),
  },
  constraints = {
    budget = lcm.by_age(function(age)
      if age < RETIREMENT then return function(consumption, wealth) return consumption:le(wealth) end end
      return function(consumption, wealth, max_share) return consumption:le(max_share * wealth) end
    end),
  },
  state_transitions = {
    wealth = function(wealth, consumption, income, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + income
    end,
  },
  transition = function(age)
    return lcm.where(age:ge(5), Regime.dead, Regime.alive)
  end,
}

local dead = lcm.regime{
  terminal = true,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "age_grid",
  ages = lcm.ages{ start = 0, stop = 6, step = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
