-- Broken on purpose: taste shocks on a regime whose only action is continuous.
local lcm = require("lcm")

local Choice = lcm.categorical{ "work", "rest", name = "Choice" }

local choose = lcm.regime{
  terminal = true,
  actions = { effort = lcm.linspace{ start = 0, stop = 1, n_points = 3 } },
  functions = {
    utility = function(effort) return -effort * effort end,
  },
  taste_shocks = lcm.ev1{ scale = function(taste_shock_scale) return taste_shock_scale end },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { choose = choose } }
