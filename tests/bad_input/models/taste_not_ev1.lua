-- Broken on purpose: taste_shocks given a number instead of lcm.ev1{...}.
local lcm = require("lcm")

local Choice = lcm.categorical{ "work", "rest", name = "Choice" }

local choose = lcm.regime{
  terminal = true,
  actions = { choice = lcm.discrete(Choice), effort = lcm.linspace{ start = 0, stop = 1, n_points = 3 } },
  functions = {
    utility = function(effort) return -effort * effort end,
  },
  taste_shocks = 0.5,
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { choose = choose } }
