-- many_shocks.lua - earnings from nine IID shock processes of two nodes
-- each.  Beyond LCM_EV_AXES (8) processes in one target the solve sums
-- over their nodes inline instead of reading an expected-V table
-- (ir/precompute.h, "ev").  Checked against the interpreter
-- (test_differential_models.c) and planned so (unit_precompute).
local lcm = require("lcm")

local R = lcm.categorical{ "alive", "dead", name = "Regime" }
local function shock() return lcm.normal_iid{ n_points = 2, gauss_hermite = false, n_std = 1 } end

local alive = lcm.regime{
  active = function(age) return age < 3 end,
  states = {
    s1 = shock(), s2 = shock(), s3 = shock(), s4 = shock(), s5 = shock(), s6 = shock(), s7 = shock(),
    s8 = shock(), s9 = shock(),
    wealth = lcm.linspace{ start = 1, stop = 10, n_points = 6 },
  },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 8, n_points = 9 } },
  functions = {
    utility = function(consumption) return math.log(consumption) end,
    earnings = function(s1, s2, s3, s4, s5, s6, s7, s8, s9)
      return math.exp(s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9)
    end,
  },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = {
    wealth = function(wealth, consumption, earnings) return 1.02 * (wealth - consumption) + earnings end,
  },
  transition = function(age) return lcm.where(age:ge(2), R.dead, R.alive) end,
}

local dead = lcm.regime{
  terminal = true,
  active = function(age) return age >= 2 end,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "many_shocks",
  ages = lcm.ages{ start = 0, step = 1, n_periods = 4 },
  regime_ids = R,
  regimes = { alive = alive, dead = dead },
}
