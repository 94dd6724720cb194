-- piecewise.lua - savings on piecewise grids (option kind = lin | log):
-- three pieces with an open boundary, next wealth leaving the grid on both
-- sides and crossing pieces; consumption on an irregular grid whose points
-- are given at run time (alive.consumption.points).  For the tests.
local lcm = require("lcm")

local kind = lcm.option("kind", "lin")
local R = lcm.categorical{ "alive", "dead" }

local pieces = { { "[0.5, 2)", 6 }, { "[2, 5]", 5 }, { "(5, 30]", 7 } }
local wealth = kind == "log" and lcm.piecewise_logspace{ pieces = pieces } or lcm.piecewise_linspace{ pieces = pieces }

local alive = lcm.regime{
  active = function(age) return age < 4 end,
  states = { wealth = wealth },
  actions = { consumption = lcm.irregular{ n_points = 9 } },
  functions = { utility = function(consumption) return math.log(consumption) end },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth + 1) end },
  state_transitions = {
    wealth = function(wealth, consumption, interest_rate) return (1 + interest_rate) * (wealth - consumption) + 1.5 end,
  },
  transition = function(age) return lcm.where(age:ge(3), R.dead, R.alive) end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 4 },
  regime_ids = R,
  regimes = { alive = alive, dead = dead },
}
