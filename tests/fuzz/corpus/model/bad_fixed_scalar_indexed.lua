-- Wrong: 'bonus' is fixed as a number but the utility indexes it by health.
local lcm = require("lcm")
local Health = lcm.categorical{ "bad", "good" }
local only = lcm.regime{
  terminal = true,
  states = { health = lcm.discrete(Health) },
  functions = { utility = function(health, bonus) return bonus[health] end },
}
return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { only = only },
  fixed_params = { bonus = 2.0 } }
