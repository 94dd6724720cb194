-- A long chain of operations: many DAG nodes, hoisting across levels.
local lcm = require("lcm")
local R = lcm.categorical{ "alive", "dead" }
local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 4 } },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 5 } },
  functions = {
    utility = function(consumption, wealth, age, period)
      local u = consumption
      for i = 1, 60 do
        u = lcm.where(u:gt(i), u - 0.5 * wealth, lcm.max(u, wealth / i)) + lcm.pow(consumption, 1 / i)
        u = lcm.clip(u, -1e6, 1e6) + lcm.min(age, period * i)
      end
      return math.log(lcm.abs(u) + 1) - math.exp(-consumption) + math.sqrt(wealth)
    end,
  },
  constraints = { budget = function(consumption, wealth) return lcm.all(consumption:le(wealth), wealth:gt(0)) end },
  state_transitions = { wealth = function(wealth, consumption) return lcm.floor(wealth - consumption) + 1 end },
  transition = function(age) return lcm.where(lcm.any(age:ge(1), age:lt(0)), R.dead, R.alive) end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 2 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
