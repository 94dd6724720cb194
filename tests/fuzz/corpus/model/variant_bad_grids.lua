-- Wrong on purpose: grids at the edges of what the constructors accept.
local lcm = require("lcm")
local R = lcm.categorical{ "alive", "dead" }
local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = {
    wealth = lcm.piecewise_logspace{ pieces = { { "[1e-300, 1)", 2 }, { "[1, 1e300]", 3 } } },
    debt = lcm.linspace{ start = -1e308, stop = 1e308, n_points = 2 },
    tiny = lcm.irregular{ points = { 0, 5e-324, 1e-323 } },
  },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 0.5000000000000001, n_points = 2147483647 } },
  functions = { utility = function(consumption, debt, tiny) return consumption / 0 + debt * tiny end },
  state_transitions = {
    wealth = function(wealth, consumption) return wealth - consumption end,
    debt = function(debt) return debt * 2 end,
    tiny = function(tiny) return tiny / 2 end,
  },
  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = -1e15, step = 1e15, n_periods = 3 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
