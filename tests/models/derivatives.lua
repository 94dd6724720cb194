-- derivatives.lua - lcm.diff (gen/dsl/diff.lua) and lcm.inverse
-- (gen/dsl/inverse.lua) at work: marginal utility and consumption back from
-- it, and `mixture`, a sum of every function whose derivative has a rule,
-- with its derivatives in consumption and in wealth.  Its utility uses
-- them, so that the kernels compute them and the differential test checks
-- them against the interpreter; tests/unit/test_derivatives.c checks their
-- values against central differences of `mixture`, marginal utility
-- against c^-risk_aversion and the inverses against the consumption they
-- came from.  The kinks of abs (c = 3), min
-- (c = 4), max (c = sqrt(10)), where (c = 5.3: no grid point, where float32
-- and float64 would decide it apart), floor (whole c), % (c a multiple of
-- 1.5) and a condition used as a number (c = 2) are where the test does
-- not look.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 3 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 8 } },
  actions = { consumption = lcm.linspace{ start = 0.2, stop = 9, n_points = 12 } },
  functions = {
    crra = function(consumption, risk_aversion)
      return consumption ^ (1 - risk_aversion) / (1 - risk_aversion)
    end,
    marginal_utility = function(crra, consumption) return lcm.diff(crra, consumption) end,
    mixture = function(consumption, wealth)
      local c, w = consumption, wealth
      return math.log(c) + math.exp(-c / 10) + math.sqrt(c * w) + lcm.log1p(c) - lcm.expm1(-c)
        + lcm.tanh(c - 2) + lcm.normal_cdf(c - w / 2) + math.abs(c - 3) + lcm.min(c, 4)
        + lcm.max(c * c / 10, 1) + lcm.where(c:gt(5.3), 2 * c, -c) + c ^ (w / 10) + w / (1 + c)
        + math.floor(c) + c % 1.5 - (c * w) ^ 2 / 100 + c:gt(2) * c
    end,
    d_mixture = function(mixture, consumption) return lcm.diff(mixture, consumption) end,
    d_mixture_wealth = function(mixture, wealth) return lcm.diff(mixture, wealth) end,
    flat = function(wealth, consumption) return lcm.diff(2 * wealth, consumption) end,
    -- consumption from marginal utility (what the endogenous grid method
    -- solves for), and from a separable form in two steps of each kind
    consumption_back = function(marginal_utility, consumption)
      return lcm.inverse(marginal_utility, consumption, marginal_utility)
    end,
    separable = function(consumption, wealth) return -(3 * math.exp(math.sqrt(consumption + 1) / 2) - wealth) end,
    consumption_back_separable = function(separable, consumption)
      return lcm.inverse(separable, consumption, separable)
    end,
    -- squares, which the tracer writes as products (u ^ 2 = u * u, u ^ -1
    -- = 1 / u): quadratic utility, and CRRA of risk aversion 2
    marginal_quadratic = function(consumption) return lcm.diff(-(30 - consumption) ^ 2, consumption) end,
    marginal_crra2 = function(consumption) return lcm.diff(consumption ^ -1 / -1, consumption) end,
    consumption_back_squares = function(marginal_quadratic, marginal_crra2, consumption)
      return lcm.inverse(marginal_quadratic, consumption, marginal_quadratic) +
        lcm.inverse(marginal_crra2, consumption, marginal_crra2)
    end,
    utility = function(crra, marginal_utility, d_mixture, d_mixture_wealth, flat, consumption_back,
                       consumption_back_separable, consumption_back_squares)
      return crra - 0.01 * marginal_utility + 0.001 * (d_mixture + d_mixture_wealth) + flat
        + 0.001 * (consumption_back + consumption_back_separable + consumption_back_squares)
    end,
  },
  constraints = {
    budget = function(consumption, wealth) return consumption:le(wealth) end,
  },
  state_transitions = {
    wealth = function(wealth, consumption, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + 1
    end,
  },
  transition = function(age) return lcm.where(age:ge(2), Regime.dead, Regime.alive) end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  name = "derivatives",
  ages = lcm.ages{ start = 0, stop = 3, step = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
