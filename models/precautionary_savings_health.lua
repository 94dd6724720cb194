-- precautionary_savings_health.lua - precautionary savings with a Markov
-- health state: health scales income and its own transition is a matrix
-- parameter.  Options as in precautionary_savings.lua (n_periods, shock,
-- wealth_points, consumption_points, consumption_stop, income_points,
-- solver, savings_points); wealth is on a lin grid.
local lcm = require("lcm")

local n_periods = lcm.option("n_periods", 5)
local shock = lcm.option("shock", "rouwenhorst")
local wealth_points = lcm.option("wealth_points", 7)
local consumption_points = lcm.option("consumption_points", 7)
local income_points = lcm.option("income_points", 5)
local consumption_stop = lcm.option("consumption_stop", 5)
local solver = lcm.option("solver", "grid")
if solver ~= "grid" and solver ~= "egm" then error("option solver must be grid or egm, not '" .. solver .. "'", 0) end

local first_age, step = 20, 10
local final_age_alive = first_age + (n_periods - 2) * step

local R = lcm.categorical{ "alive", "dead", name = "Regime" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }

local income
if shock == "rouwenhorst" then income = lcm.rouwenhorst_ar1{ n_points = income_points }
elseif shock == "tauchen" then income = lcm.tauchen_ar1{ n_points = income_points, gauss_hermite = false, n_std = 3 }
elseif shock == "normal_gh" then income = lcm.normal_iid{ n_points = income_points, gauss_hermite = true }
else error("option shock must be rouwenhorst, tauchen or normal_gh, not '" .. shock .. "'", 0) end

local alive = lcm.regime{
  active = function(age) return age <= final_age_alive end,
  states = {
    health = lcm.discrete(Health),
    income = income,
    wealth = lcm.linspace{ start = 1, stop = 20, n_points = wealth_points },
  },
  actions = { consumption = lcm.linspace{ start = 0.1, stop = consumption_stop, n_points = consumption_points } },
  functions = {
    earnings = function(income, health, health_income) return math.exp(income) * health_income[health] end,
    utility = function(consumption, health, health_utility)
      return math.log(consumption) + health_utility[health]
    end,
  },
  constraints = { wealth_constraint = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = {
    wealth = function(wealth, consumption, earnings, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + earnings
    end,
    health = lcm.markov(function(health, health_transition) return health_transition[health] end),
  },
  transition = function(age)
    return lcm.where(age:ge(final_age_alive), R.dead, R.alive)
  end,
  solver = solver == "egm" and
    lcm.egm{ savings = lcm.linspace{ start = 0, stop = 20, n_points = lcm.option("savings_points", 200) } } or nil,
}

local dead = lcm.regime{
  terminal = true,
  active = function(age) return age > final_age_alive end,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "precautionary_savings_health",
  ages = lcm.ages{ start = first_age, step = step, n_periods = n_periods },
  regime_ids = R,
  regimes = { alive = alive, dead = dead },
}
