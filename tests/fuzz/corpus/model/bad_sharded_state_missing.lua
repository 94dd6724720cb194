-- Wrong: 'young' has no 'type' state but moves to 'old', whose 'type' state
-- is sharded; a sharded state must be carried (lcm.fixed) into every
-- regime that carries it.
local lcm = require("lcm")
local R = lcm.categorical{ "young", "old", "dead" }
local Type = lcm.categorical{ "a", "b" }
local young = lcm.regime{
  active = function(age) return age < 1 end,
  functions = { utility = function() return 1 end },
  transition = function() return R.old end,
}
local old = lcm.regime{
  active = function(age) return age >= 1 and age < 2 end,
  states = { type = lcm.discrete(Type, { distributed = true }) },
  functions = { utility = function(type) return type end },
  state_transitions = { type = lcm.fixed },
  transition = function() return R.dead end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 2 }, regime_ids = R,
  regimes = { young = young, old = old, dead = dead } }
