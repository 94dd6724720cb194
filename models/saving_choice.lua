-- saving_choice.lua - choose next period's wealth on the wealth grid itself
-- (the textbook value function iteration of an income-fluctuation problem):
-- consumption is what the saving choice leaves of cash on hand.
--
-- Next wealth is the saving choice, so the continuation reads the income
-- state and the choice but not current wealth: lcmgen computes it once per
-- (income, saving) into a table before each period's kernel instead of once
-- per (income, wealth, saving) (docs/internals.md, "Continuation tables").
-- Splaying income (income_batch) bounds that table.
--
-- Options (lcmgen / lcm -D name=value):
--   n_periods      6
--   wealth_points  60    points of wealth and of the saving choice
--   income_points  7     Rouwenhorst AR(1) points of log income
--   income_batch   0     batch_size of income (splay: chunks of that many points; V is the same)
--   types          0     with n > 0, a fixed state `kind` of n types, sharded across
--                        workers (distributed), each type k enjoying consumption
--                        more by patience_gap * k; the table then reads it too
local lcm = require("lcm")

local n_periods = lcm.option("n_periods", 6)
local wealth_points = lcm.option("wealth_points", 60)
local income_points = lcm.option("income_points", 7)
local income_batch = lcm.option("income_batch", 0)
local types = lcm.option("types", 0)

local first_age = 25
local last_alive = first_age + n_periods - 2

local R = lcm.categorical{ "alive", "dead", name = "Regime" }
local wealth_min, wealth_max = 0.0, 30.0

local states = {
  income = lcm.rouwenhorst_ar1{ n_points = income_points, batch_size = income_batch },
  wealth = lcm.linspace{ start = wealth_min, stop = wealth_max, n_points = wealth_points },
}
local state_transitions = { wealth = function(saving) return saving end }
local type_bonus = function() return 0 end
if types > 0 then
  local names = { name = "Kind" }
  for k = 1, types do names[k] = "type" .. k end
  states.kind = lcm.discrete(lcm.categorical(names), { distributed = true })
  state_transitions.kind = lcm.fixed
  type_bonus = function(kind, patience_gap) return patience_gap * kind end
end

local alive = lcm.regime{
  active = function(age) return age <= last_alive end,
  states = states,
  actions = { saving = lcm.linspace{ start = wealth_min, stop = wealth_max, n_points = wealth_points } },
  functions = {
    consumption = function(wealth, income, saving, interest_rate)
      return (1 + interest_rate) * wealth + math.exp(income) - saving
    end,
    type_bonus = type_bonus,
    utility = function(consumption, type_bonus, risk_aversion)
      return (consumption ^ (1 - risk_aversion) - 1) / (1 - risk_aversion) + type_bonus
    end,
  },
  constraints = { positive_consumption = function(consumption) return consumption:gt(0) end },
  state_transitions = state_transitions,
  transition = function(age)
    return lcm.where(age:ge(last_alive), R.dead, R.alive)
  end,
}

local dead = lcm.regime{
  terminal = true,
  active = function(age) return age > last_alive end,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "saving_choice",
  ages = lcm.ages{ start = first_age, step = 1, n_periods = n_periods },
  regime_ids = R,
  regimes = { alive = alive, dead = dead },
}
