-- exact_division.lua - a discrete next state computed by a division that
-- must be exact: units / unit_size with 49 / 49 = 1 (a product with the
-- reciprocal, 49 * (1/49) = 0.9999999999999999, would not be a code of
-- Level).  V is 1.02 at every level: buy 49 units (utility -0.49) to reach
-- level 1 (worth 1), or 98 to reach level 2 (worth 2, at a cost of 0.98).
local lcm = require("lcm")

local Level = lcm.categorical{ "l0", "l1", "l2", name = "Level" }
local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  states = { level = lcm.discrete(Level) },
  actions = { units = lcm.irregular{ points = { 0, 49, 98 } } },
  functions = { utility = function(units) return -0.01 * units end },
  state_transitions = { level = function(units, unit_size) return units / unit_size end },
  transition = function() return Regime.dead end,
}

local dead = lcm.regime{
  terminal = true,
  states = { level = lcm.discrete(Level) },
  functions = { utility = function(level) return level end },
}

return lcm.model{
  name = "exact_division",
  ages = lcm.ages{ start = 0, stop = 1, step = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
