-- solver = lcm.egm{...} where the endogenous grid method cannot go, one way
-- per -D bad=...: utility of wealth, next wealth not a function of savings,
-- a constraint besides the budget, another aggregator, a marginal utility
-- without a closed-form inverse or without consumption in it, a savings
-- grid off the budget's limit or with a batch_size, a name that is no
-- state, two continuous states, a terminal regime, Epstein-Zin preferences,
-- a target solved by grid search that carries wealth, a regime probability
-- of wealth, next wealth without consumption, a solver that is not
-- lcm.egm, savings that are no grid or one given at run time, next wealth
-- that falls with savings, a strict budget, a taste-shock scale of wealth,
-- a utility by age that reads no consumption at some age, a utility that
-- selects by a condition on consumption;
-- next wealth with a jump in savings (a warning); and, for the runtime, a
-- model EGM can solve (bad=none).
local lcm = require("lcm")

local bad = lcm.option("bad", "none")
local no_inverse, linear, not_savings, no_consumption = bad == "no_inverse", bad == "linear", bad == "not_savings",
  bad == "no_consumption"
local falling, jump, strict = bad == "falling", bad == "jump", bad == "strict_budget"
local Regime = lcm.categorical{ "alive", "retired", "dead", name = "Regime" }

local savings = lcm.linspace{ start = bad == "savings_start" and 1 or 0, stop = 20, n_points = 40, batch_size = bad == "savings_batch" and 5 or 0 }
if bad == "savings_runtime" then savings = lcm.irregular{ n_points = 5 } end
if bad == "savings_not_grid" then savings = 5 end
local solver = lcm.egm{ savings = savings, state = bad == "unknown_state" and "health" or nil }
if bad == "not_egm" then solver = "egm" end

local states = { wealth = lcm.linspace{ start = 1, stop = 20, n_points = 20 } }
if bad == "two_states" then states.pension = lcm.linspace{ start = 0, stop = 5, n_points = 3 } end

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = states,
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 20 },
    labor = bad == "taste_of_wealth" and lcm.discrete(lcm.categorical{ "work", "rest" }) or nil },
  functions = {
    utility = bad == "utility_of_wealth" and function(consumption, wealth)
      return math.log(consumption) + 0.1 * math.log(wealth)
    end or bad == "by_age_constant" and lcm.by_age(function(age)
      if age < 1 then return function(consumption) return math.log(consumption) end end
      return function() return 1 end
    end) or bad == "where_on_consumption" and function(consumption)
      return lcm.where(consumption:gt(2), math.log(consumption), 2 * math.log(consumption))
    end or function(consumption)
      if no_inverse then return math.log(consumption) + math.sqrt(consumption) end
      if linear then return 2 * consumption end
      return math.log(consumption)
    end,
    H = bad == "aggregator" and function(utility, E_next_V, discount_factor)
      return utility + discount_factor * E_next_V * E_next_V
    end or nil,
  },
  constraints = {
    budget = strict and function(consumption, wealth) return consumption:lt(wealth) end or
      function(consumption, wealth) return consumption:le(wealth) end,
    floor = bad == "extra_constraint" and function(consumption) return consumption:ge(1) end or nil,
  },
  state_transitions = {
    wealth = function(wealth, consumption, interest_rate)
      if not_savings then return (1 + interest_rate) * (wealth - consumption) + 0.01 * consumption end
      if no_consumption then return (1 + interest_rate) * wealth + 0 * consumption end
      if falling then return 10 - (wealth - consumption) end
      if jump then return lcm.where((wealth - consumption):gt(5), 1.1, 1) * (wealth - consumption) + 1 end
      return (1 + interest_rate) * (wealth - consumption) + 1
    end,
    pension = bad == "two_states" and lcm.fixed or nil,
  },
  transition = bad == "regime_of_wealth" and function(age, wealth)
    return lcm.where(wealth:ge(10), Regime.retired, lcm.where(age:ge(1), Regime.retired, Regime.alive))
  end or function(age)
    return lcm.where(age:ge(1), Regime.retired, Regime.alive)
  end,
  risk_aversion = bad == "epstein_zin" and function() return 2 end or nil,
  taste_shocks = bad == "taste_of_wealth" and lcm.ev1{ scale = function(wealth) return 0.1 * wealth end } or nil,
  solver = solver,
}

local retired = lcm.regime{
  terminal = bad == "terminal",
  active = function(age) return age >= 1 and (age < 3 or bad == "terminal") end,
  states = { wealth = lcm.linspace{ start = 1, stop = 20, n_points = 20 } },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 20 } },
  functions = { utility = function(consumption) return math.log(consumption) end },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = bad ~= "terminal" and {
    wealth = function(wealth, consumption) return wealth - consumption end,
  } or nil,
  transition = bad ~= "terminal" and function(age) return lcm.where(age:ge(2), Regime.dead, Regime.retired) end or nil,
  solver = bad ~= "grid_target" and lcm.egm{ savings = savings } or nil,
}

local dead = lcm.regime{ terminal = true, active = function(age) return age >= 2 end,
  functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 3 },
  regime_ids = Regime,
  regimes = { alive = alive, retired = retired, dead = dead },
  fixed_params = { discount_factor = 0.95, interest_rate = 0.02 },
}
