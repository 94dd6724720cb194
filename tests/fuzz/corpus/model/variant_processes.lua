-- Every shock process as a state, parameters fixed or left to run time.
local lcm = require("lcm")
local R = lcm.categorical{ "alive", "dead" }
local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = {
    a = lcm.normal_iid{ n_points = 3, gauss_hermite = true, mu = 0, sigma = 1 },
    b = lcm.lognormal_iid{ n_points = 2, gauss_hermite = false, n_std = 2 },
    c = lcm.uniform_iid{ n_points = 2, start = -1, stop = 1 },
    d = lcm.normal_mixture_iid{ n_points = 2, n_std = 2, p1 = 0.3, mu1 = -1, sigma1 = 0.5, mu2 = 1, sigma2 = 0.5 },
    e = lcm.tauchen_ar1{ n_points = 3, gauss_hermite = true, rho = 0.9 },
    f = lcm.rouwenhorst_ar1{ n_points = 2, rho = -0.5, sigma = 0.1, mu = 0 },
    g = lcm.tauchen_normal_mixture_ar1{ n_points = 2, rho = 0.5, mu = 0, n_std = 3 },
    wealth = lcm.logspace{ start = 1, stop = 10, n_points = 3 },
  },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 3 } },
  functions = {
    utility = function(consumption, a, b, c, d, e, f, g)
      return math.log(consumption) + a + b + c + d + e + f + g
    end,
  },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = { wealth = function(wealth, consumption, a) return wealth - consumption + math.exp(a) end },
  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 2 }, regime_ids = R, regimes = { alive = alive, dead = dead } }
