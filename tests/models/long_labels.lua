-- long_labels.lua - a discrete state of 5,000 categories with long labels:
-- more names than an HDF5 attribute holds (64 KiB, 16 bytes a name), so the
-- solution and panel files keep labels as datasets
-- (tests/integration/test_solution_formats.c; the bad-input catalogue's
-- io_full_disk_*_datasets, with long_labels.initial.csv).  Cheap to solve:
-- two periods, two wealth points, two actions.
local lcm = require("lcm")

local names = {}
for i = 1, 5000 do names[i] = string.format("household_type_%04d_of_a_rather_long_list_of_categories", i) end
local Kind = lcm.categorical(names)
local R = lcm.categorical{ "alive", "dead" }

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  states = { kind = lcm.discrete(Kind), wealth = lcm.linspace{ start = 1, stop = 2, n_points = 2 } },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 1, n_points = 2 } },
  functions = { utility = function(consumption) return math.sqrt(consumption) end },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = {
    kind = lcm.fixed,
    wealth = function(wealth, consumption) return wealth - consumption + 1 end,
  },
  transition = function(age) return lcm.where(age:ge(0), R.dead, R.alive) end,
}

local dead = lcm.regime{
  terminal = true,
  active = function(age) return age == 1 end,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "long_labels",
  ages = lcm.ages{ start = 0, n_periods = 2 },
  regime_ids = R,
  regimes = { alive = alive, dead = dead },
}
