-- Broken on purpose: a Lua `if` on a traced comparison.  `wealth:gt(5)` is a
-- traced value (always truthy for Lua), so the branch is silently decided
-- when tracing; the comparison never reaches the result.
local lcm = require("lcm")

local dead = lcm.regime{
  terminal = true,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = {
    utility = function(wealth)
      if wealth:gt(5) then
        return wealth
      end
      return 2 * wealth
    end,
  },
}

return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }
