-- grid_edges.lua - next states that leave their grids on every side (by a
-- few cells: far outside, extrapolation weights of hundreds amplify
-- rounding), on lin, log and irregular grids, a deterministic discrete
-- transition and n-ary min/max.  Next wealth goes down to -1, where the log
-- grid has no logarithm.  For the differential test.
local lcm = require("lcm")

local R = lcm.categorical{ "living", "dead" }
local Mood = lcm.categorical{ "low", "mid", "high" }

local living = lcm.regime{
  active = function(age) return age < 3 end,
  states = {
    { "mood", lcm.discrete(Mood) },
    { "wealth", lcm.logspace{ start = 1, stop = 100, n_points = 12 } },
    { "skill", lcm.irregular{ points = { 0, 0.5, 2, 5 } } },
    { "habit", lcm.linspace{ start = -1, stop = 1, n_points = 5 } },
  },
  actions = {
    consumption = lcm.linspace{ start = 0.5, stop = 40, n_points = 25 },
    effort = lcm.irregular{ points = { 0, 1, 3 } },
  },
  functions = {
    utility = function(consumption, effort, mood, habit, skill)
      return math.log(consumption) - 0.1 * effort ^ 2 + 0.2 * mood - lcm.max(habit, 0, skill - 4, -1)
    end,
  },
  constraints = {
    spending = function(consumption, wealth) return consumption:le(wealth + 2) end,
  },
  state_transitions = {
    mood = function(mood, effort) return lcm.min(mood + effort, 2, 5, lcm.floor(effort * 2)) end,
    wealth = function(wealth, consumption, skill) return wealth - consumption + 1 + skill end,
    skill = function(skill, effort) return skill * 1.5 + effort - 1 end,
    habit = function(habit, consumption) return 0.5 * habit + (consumption - 20) / 10 end,
  },
  transition = function(age) return lcm.where(age:ge(2), R.dead, R.living) end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 3 },
  regime_ids = R,
  regimes = { living = living, dead = dead },
}
