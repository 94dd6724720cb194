-- mortality.lua - work, retire and die.
--
-- Three regimes: `working` and `retired` households survive each period with
-- a probability that depends on age and health (a Markov regime transition
-- into `dead`); health itself follows a Markov chain; the patience type is
-- fixed for life and sets the discount factor (a DAG function instead of a
-- parameter).  Retiring pays out a pension into wealth (a transition that
-- depends on the target regime).
--
-- Option: n_periods (default 7; ages 50, 55, ...).
local lcm = require("lcm")

local n_periods = lcm.option("n_periods", 7)
local first_age, step = 50, 5
local last_age = first_age + (n_periods - 1) * step

local Regime = lcm.categorical{ "working", "retired", "dead", name = "Regime" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }
local Patience = lcm.categorical{ "patient", "impatient", name = "Patience" }
local LaborSupply = lcm.categorical{ "work", "retire", name = "LaborSupply" }

local wealth = lcm.linspace{ start = 1, stop = 100, n_points = 60 }
local consumption = lcm.linspace{ start = 0.5, stop = 50, n_points = 100 }

local function alive(age) return age < last_age end

-- shared by both living regimes
local functions = {
  discount_factor = function(patience, beta) return beta[patience] end,
  survival_probability = function(period, health, survival) return survival[period][health] end,
}

local function budget(consumption, wealth) return consumption:le(wealth) end

local function next_wealth(wealth, consumption, income, interest_rate)
  return (1 + interest_rate) * (wealth - consumption) + income
end

local health_transition = lcm.markov(function(health, health_transition)
  return health_transition[health]
end)

local working = lcm.regime{
  active = alive,
  states = { patience = lcm.discrete(Patience), health = lcm.discrete(Health), wealth = wealth },
  actions = { labor_supply = lcm.discrete(LaborSupply), consumption = consumption },
  functions = {
    discount_factor = functions.discount_factor,
    survival_probability = functions.survival_probability,
    is_working = function(labor_supply) return labor_supply:eq("work") end,
    income = function(is_working, health, wage) return lcm.where(is_working, wage[health], 0) end,
    utility = function(consumption, is_working, health, disutility_of_work)
      return math.log(consumption) - lcm.where(is_working, disutility_of_work[health], 0)
    end,
  },
  constraints = { budget = budget },
  state_transitions = {
    patience = lcm.fixed,
    health = health_transition,
    wealth = {
      working = next_wealth,
      retired = function(wealth, consumption, income, interest_rate, pension)
        return (1 + interest_rate) * (wealth - consumption) + income + pension
      end,
    },
  },
  transition = lcm.markov(function(survival_probability, is_working)
    return {
      working = survival_probability * is_working,
      retired = survival_probability * lcm.not_(is_working),
      dead = 1 - survival_probability,
    }
  end),
}

local retired = lcm.regime{
  active = alive,
  states = { patience = lcm.discrete(Patience), health = lcm.discrete(Health), wealth = wealth },
  actions = { consumption = consumption },
  functions = {
    discount_factor = functions.discount_factor,
    survival_probability = functions.survival_probability,
    income = function(benefit) return benefit end,
    utility = function(consumption) return math.log(consumption) end,
  },
  constraints = { budget = budget },
  state_transitions = { patience = lcm.fixed, health = health_transition, wealth = next_wealth },
  transition = lcm.markov(function(survival_probability)
    return { retired = survival_probability, dead = 1 - survival_probability }
  end),
}

local dead = lcm.regime{
  terminal = true,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "mortality",
  ages = lcm.ages{ start = first_age, step = step, n_periods = n_periods },
  regime_ids = Regime,
  regimes = { working = working, retired = retired, dead = dead },
}
