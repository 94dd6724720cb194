-- iskhakov_2017.lua - the consumption / retirement model of Iskhakov,
-- Jørgensen, Rust & Schjerning (2017), "The endogenous grid method for
-- discrete-continuous dynamic choice models with (or without) taste shocks",
-- Quantitative Economics 8.  Its closed-form solution is tabulated in
-- tests/reference/iskhakov_2017; tests/integration compares against it.
--
-- Options: n_periods (default 6): lcmgen -D n_periods=4 ...; taste_shocks
-- (default false): EV1 taste shocks on the retirement choice, of scale
-- `taste_shock_scale` (the paper's lambda; a run-time parameter);
-- solver (default grid): grid search, or egm for the endogenous grid
-- method (DC-EGM in working life) on savings_points savings from 0 to 400;
-- wealth_points (default 100): the wealth grid on [1, 400]; consumption_points
-- (default 500): grid search's consumption grid on [1, 400].
local lcm = require("lcm")

local n_periods = lcm.option("n_periods", 6)
local with_taste_shocks = lcm.option("taste_shocks", false)
local first_age, age_step = 40, 10
local last_age = first_age + (n_periods - 1) * age_step
local final_age_alive = first_age + (n_periods - 2) * age_step

local Regime = lcm.categorical{ "working_life", "retirement", "dead", name = "Regime" }
local LaborSupply = lcm.categorical{ "work", "retire", name = "LaborSupply" }

local solver = lcm.option("solver", "grid")
local wealth = lcm.linspace{ start = 1, stop = 400, n_points = lcm.option("wealth_points", 100) }
local consumption = lcm.linspace{ start = 1, stop = 400, n_points = lcm.option("consumption_points", 500) }
if solver ~= "grid" and solver ~= "egm" then error("option solver must be grid or egm, not '" .. solver .. "'", 0) end
local egm = solver == "egm" and
  lcm.egm{ savings = lcm.linspace{ start = 0, stop = 400, n_points = lcm.option("savings_points", 2000) } } or nil

local function alive_before_last_age(age) return age < last_age end

local function next_wealth(wealth, consumption, labor_income, interest_rate)
  return (1 + interest_rate) * (wealth - consumption) + labor_income
end

local function borrowing_constraint(consumption, wealth)
  return consumption:le(wealth)
end

local working_life = lcm.regime{
  active = alive_before_last_age,
  states = { wealth = wealth },
  actions = { labor_supply = lcm.discrete(LaborSupply), consumption = consumption },
  functions = {
    is_working = function(labor_supply) return labor_supply:eq("work") end,
    labor_income = function(is_working, wage) return lcm.where(is_working, wage, 0) end,
    utility = function(consumption, is_working, disutility_of_work)
      return math.log(consumption) - lcm.where(is_working, disutility_of_work, 0)
    end,
  },
  constraints = { borrowing_constraint = borrowing_constraint },
  state_transitions = { wealth = next_wealth },
  transition = function(age, labor_supply)
    return lcm.where(age:ge(final_age_alive), Regime.dead,
      lcm.where(labor_supply:eq("retire"), Regime.retirement, Regime.working_life))
  end,
  taste_shocks = with_taste_shocks and lcm.ev1{ scale = function(taste_shock_scale) return taste_shock_scale end } or nil,
  solver = egm,
}

local retirement = lcm.regime{
  active = alive_before_last_age,
  states = { wealth = wealth },
  actions = { consumption = consumption },
  functions = {
    labor_income = function() return 0 end,
    utility = function(consumption) return math.log(consumption) end,
  },
  constraints = { borrowing_constraint = borrowing_constraint },
  state_transitions = { wealth = next_wealth },
  transition = function(age)
    return lcm.where(age:ge(final_age_alive), Regime.dead, Regime.retirement)
  end,
  solver = egm,
}

local dead = lcm.regime{
  terminal = true,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "iskhakov_2017",
  description = "Iskhakov et al. (2017) consumption and retirement",
  ages = lcm.ages{ start = first_age, step = age_step, n_periods = n_periods },
  regime_ids = Regime,
  regimes = { working_life = working_life, retirement = retirement, dead = dead },
}
