-- Broken on purpose: the taste-shock scale returns a condition, not a number.
local lcm = require("lcm")

local Choice = lcm.categorical{ "work", "rest", name = "Choice" }

local choose = lcm.regime{
  terminal = true,
  actions = { choice = lcm.discrete(Choice), effort = lcm.linspace{ start = 0, stop = 1, n_points = 3 } },
  functions = {
    utility = function(effort) return -effort * effort end,
  },
  taste_shocks = lcm.ev1{ scale = function(taste_shock_scale) return taste_shock_scale:gt(0) end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { choose = choose } }
