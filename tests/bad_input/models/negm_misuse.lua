-- negm_misuse.lua - nested EGM (a continuous durable d enumerated beside
-- consumption c, solved by EGM: tests/models/negm_cake.lua) used wrongly,
-- by -D bad=...:
--   not_last     the actions keyed by name: 'c' sorts before 'd', so the
--                EGM action is not the last
--   taste        taste shocks on keep/adjust with d enumerated too
--   no_inverse   utility min(c, d + 1): its marginal utility in c has no
--                closed-form inverse
local lcm = require("lcm")

local bad = lcm.option("bad", "none")
local Regime = lcm.categorical{ "alive", "last", name = "Regime" }
local Adjust = lcm.categorical{ "keep", "adjust", name = "Adjust" }

local states = {
  { "wealth", lcm.linspace{ start = 0.5, stop = 12, n_points = 20 } },
  { "n", lcm.linspace{ start = 0, stop = 3, n_points = 4 } },
}
local adjust = lcm.discrete(Adjust)
local d = lcm.linspace{ start = 0, stop = 3, n_points = 4 }
local c = lcm.linspace{ start = 0.01, stop = 15, n_points = 50 }
local actions = { { "adjust", adjust }, { "d", d }, { "c", c } }
if bad == "not_last" then actions = { adjust = adjust, d = d, c = c } end

local utility = function(c, durable) return math.log(c) + 0.2 * math.log(durable + 0.5) end
if bad == "no_inverse" then utility = function(c, durable) return lcm.min(c, durable + 1) end end

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = states,
  actions = actions,
  functions = {
    durable = function(adjust, d, n) return lcm.where(adjust:eq("adjust"), d, n) end,
    resources = function(adjust, wealth, n, d) return lcm.where(adjust:eq("adjust"), wealth + 0.9 * n - d, wealth) end,
    utility = utility,
  },
  constraints = {
    budget = function(c, resources) return c:le(resources) end,
    keep_once = function(adjust, d) return lcm.any(adjust:eq("adjust"), d:le(0)) end,
  },
  state_transitions = {
    wealth = function(resources, c) return 1.03 * (resources - c) + 0.5 end,
    n = function(durable) return 0.85 * durable end,
  },
  transition = function(age) return lcm.where(age:ge(1), Regime.last, Regime.alive) end,
  taste_shocks = bad == "taste" and lcm.ev1{ scale = function(taste_shock_scale) return taste_shock_scale end } or nil,
  solver = lcm.egm{ state = "wealth", action = "c", savings = lcm.linspace{ start = 0, stop = 12, n_points = 40 } },
}

local last = lcm.regime{
  terminal = true,
  active = function(age) return age == 2 end,
  states = states,
  functions = { utility = function(wealth, n) return math.log(wealth) + 0.2 * math.log(n + 0.5) end },
}

return lcm.model{
  name = "negm_misuse",
  ages = lcm.ages{ start = 0, n_periods = 3 },
  regime_ids = Regime,
  regimes = { alive = alive, last = last },
}
