-- cake_on_grid.lua - a deterministic model whose paths never leave the
-- grid: whole units of cake (0..30), eaten in whole units, so next wealth
-- = wealth - consumption is a grid point.  The simulation test checks that
-- a simulated path is the solution's policy, state by state.
local lcm = require("lcm")

local R = lcm.categorical{ "eating", "done" }
local units = lcm.linspace{ start = 0, stop = 30, n_points = 31 }

local eating = lcm.regime{
  active = function(age) return age < 5 end,
  states = { wealth = units },
  actions = { consumption = units },
  functions = { utility = function(consumption) return math.sqrt(consumption) end },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = { wealth = function(wealth, consumption) return wealth - consumption end },
  transition = function(age) return lcm.where(age:ge(4), R.done, R.eating) end,
}

local done = lcm.regime{
  terminal = true,
  active = function(age) return age == 5 end,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "cake_on_grid",
  ages = lcm.ages{ start = 0, n_periods = 6 },
  regime_ids = R,
  regimes = { eating = eating, done = done },
}
