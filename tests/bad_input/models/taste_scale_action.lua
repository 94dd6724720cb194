-- Broken on purpose: the taste-shock scale depends on an action (it must be known before the choice).
local lcm = require("lcm")

local Choice = lcm.categorical{ "work", "rest", name = "Choice" }

local choose = lcm.regime{
  terminal = true,
  actions = { choice = lcm.discrete(Choice), effort = lcm.linspace{ start = 0, stop = 1, n_points = 3 } },
  functions = {
    utility = function(effort) return -effort * effort end,
  },
  taste_shocks = lcm.ev1{ scale = function(effort) return 0.1 * effort end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { choose = choose } }
