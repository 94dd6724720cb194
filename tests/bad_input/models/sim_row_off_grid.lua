-- sim_row_off_grid.lua - a simulation whose CPU kernel keeps each subject's
-- row of the continuation table (gen/emit.c, "the state's row": E reads
-- level, wealth and saving, not the IID shock, nor labor, which loops
-- outside saving), where a
-- next level leaves its grid: the entry and its off-grid byte are stored
-- under labor = rest (where effort's constraint, checked after E, rules the
-- pair out) and read under labor = work (feasible).  The error names the
-- subject, as the interpreter's and the inline code's do.
local lcm = require("lcm")
local R = lcm.categorical{ "main", "dead", name = "Regime" }
local Level = lcm.categorical{ "lo", "mid", "hi", name = "Level" }
local Labor = lcm.categorical{ "rest", "work", name = "Labor" }
local main = lcm.regime{
  active = function(age) return age < 3 end,
  states = { { "level", lcm.discrete(Level) }, { "wealth", lcm.linspace{ start = 0.5, stop = 20, n_points = 10 } },
             { "shock", lcm.normal_iid{ n_points = 3, gauss_hermite = true, mu = 0, sigma = 0.2 } } },
  actions = { { "labor", lcm.discrete(Labor) }, { "saving", lcm.linspace{ start = 0, stop = 15, n_points = 12 } },
              { "effort", lcm.linspace{ start = 0, stop = 1, n_points = 3 } } },
  functions = {
    consumption = function(wealth, labor, level, saving, effort, shock)
      return wealth + labor * (1 + level + effort) * lcm.exp(shock) - saving
    end,
    utility = function(consumption, labor, effort) return lcm.log(consumption) - 0.3 * labor - 0.1 * effort * effort end,
  },
  constraints = {
    positive = function(consumption) return consumption:gt(0) end,
    rest_cap = function(saving, effort, labor) return (saving * (1 - labor) + effort):le(5 + 100 * labor) end,
  },
  state_transitions = {
    level = function(level, wealth, saving) return lcm.where((wealth + saving):gt(35), 3, level) end,
    wealth = function(saving) return 1.02 * saving end,
  },
  transition = lcm.markov(function(age)
    local s = lcm.where(age:ge(2), 0, 0.9)
    return { main = s, dead = 1 - s }
  end),
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ name = "sim_row_off_grid", ages = lcm.ages{ start = 0, stop = 3 }, regime_ids = R,
                  regimes = { main = main, dead = dead } }
