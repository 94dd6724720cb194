-- A NUL byte in a categorical's name: the manifest text is cut at it and
-- does not read back ("internal error: the traced model does not read back:
-- manifest line N: discrete grid without labels").  Found by fuzz_model.
local lcm = require("lcm")
local R = lcm.categorical{ "alive", "dead" }
local Mood = lcm.categorical{ "low", "high", name = "Mo\0od" }
local alive = lcm.regime{
  active = function(age) return age < 1 end,
  states = { mood = lcm.discrete(Mood) },
  functions = { utility = function(mood) return mood end },
  state_transitions = { mood = lcm.fixed },
  transition = function() return R.dead end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
