-- Broken on purpose (found by the solve): at age 1 `alive` stays alive with
-- probability `stay` (0.2 in the catalogue), but `alive` is inactive at age 2.
-- (With a constant 0.2, lcmgen finds it: reach_enter_inactive.lua.)
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  functions = { utility = function() return 1 end },
  transition = lcm.markov(function(stay) return { alive = stay, dead = 1 - stay } end),
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 2 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
