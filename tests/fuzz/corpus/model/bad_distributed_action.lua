-- Wrong: distributed = true on an action (sharding splits the axes of V,
-- which are states).
local lcm = require("lcm")
local Work = lcm.categorical{ "no", "yes" }
local only = lcm.regime{
  terminal = true,
  actions = { work = lcm.discrete(Work, { distributed = true }) },
  functions = { utility = function(work) return work end },
}
return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { only = only } }
