-- No regime is active at any age (active(age) never holds: the ages start
-- at 5).  lcmgen accepts it and writes a manifest without kernels, which the
-- runtime then refuses as "not written by lcmgen (no kernel table or
-- checksum); regenerate the model".  Found by fuzz_model (from cake_eating.lua).
local lcm = require("lcm")
local R = lcm.categorical{ "eating", "last_bite" }
local wealth = lcm.logspace{ start = 0.1, stop = 100, n_points = 4 }
local eating = lcm.regime{
  active = function(age) return age < 1 end,
  states = { wealth = wealth },
  actions = { share = lcm.linspace{ start = 0.1, stop = 0.9, n_points = 3 } },
  functions = { utility = function(wealth, share) return math.log(wealth * share) end },
  state_transitions = { wealth = function(wealth, share) return wealth * (1 - share) end },
  transition = function(age) return lcm.where(age:ge(0), R.last_bite, R.eating) end,
}
local last_bite = lcm.regime{
  terminal = true,
  active = function(age) return age == 1 end,
  states = { wealth = wealth },
  functions = { utility = function(wealth) return math.log(wealth) end },
}
return lcm.model{ ages = lcm.ages{ start = 5, n_periods = 2 }, regime_ids = R,
  regimes = { eating = eating, last_bite = last_bite } }
