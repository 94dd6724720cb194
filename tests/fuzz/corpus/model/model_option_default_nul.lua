-- A NUL byte in the default of a string option: the manifest's option line
-- is cut at it and the manifest does not read back (an internal error).
local lcm = require("lcm")
local note = lcm.option("note", "a\0b")
local R = lcm.categorical{ "alive", "dead" }
local alive = lcm.regime{
  active = function(age) return age < 1 end,
  functions = { utility = function() return #note end },
  transition = function() return R.dead end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
