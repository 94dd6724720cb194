-- cake_eating.lua - eat a cake of size wealth over n_periods periods with
-- log utility.  Closed form (tests/integration/test_closed_form.c):
--   V_t(w) = B_t log w + A_t,  B_t = sum_{k=0}^{T-1-t} beta^k,
-- eating the share 1 / B_t each period.
local lcm = require("lcm")

local T = lcm.option("n_periods", 2)
local R = lcm.categorical{ "eating", "last_bite" }
local wealth = lcm.logspace{ start = 0.1, stop = 100, n_points = 400 }

local eating = lcm.regime{
  active = function(age) return age < T - 1 end,
  states = { wealth = wealth },
  actions = { share = lcm.linspace{ start = 0.0005, stop = 0.9995, n_points = 2000 } },
  functions = {
    consumption = function(wealth, share) return wealth * share end,
    utility = function(consumption) return math.log(consumption) end,
  },
  state_transitions = { wealth = function(wealth, consumption) return wealth - consumption end },
  transition = function(age) return lcm.where(age:ge(T - 2), R.last_bite, R.eating) end,
}

local last_bite = lcm.regime{
  terminal = true,
  active = function(age) return age == T - 1 end,
  states = { wealth = wealth },
  functions = { utility = function(wealth) return math.log(wealth) end },
}

return lcm.model{
  name = "cake_eating",
  ages = lcm.ages{ start = 5, n_periods = T },
  regime_ids = R,
  regimes = { eating = eating, last_bite = last_bite },
}
