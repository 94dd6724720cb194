-- Replaces a function of the DSL: what it returns is checked before C reads it.
local lcm = require("lcm")
require("lcm.trace").take_warnings = function() return { 1, {}, "x" } end
local R = lcm.categorical{ "alive", "dead" }
local alive = lcm.regime{
  active = function(age) return age < 1 end,
  functions = { utility = function() return 1 end },
  transition = function() return R.dead end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
