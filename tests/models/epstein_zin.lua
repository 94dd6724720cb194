-- epstein_zin.lua - a saving choice under mortality and Markov income risk,
-- with Epstein-Zin preferences or the expected-utility model they reduce to
-- when the risk aversion equals the inverse EIS (option `variant`):
--   ez  V = [(1 - beta) c^(1 - rho) + beta CE^(1 - rho)]^(1 / (1 - rho)),
--       CE = (E[V'^(1 - alpha)])^(1 / (1 - alpha)) over survival and income;
--       dead: a bequest worth bequest_floor + bequest_weight * wealth
--       (consumption units)
--   eu  W = (1 - beta) c^(1 - rho) / (1 - rho) + beta E[W'], the same model
--       through W = V^(1 - rho) / (1 - rho): at alpha = rho, V(ez) and W(eu)
--       are that transform of each other exactly, because next wealth is the
--       saving choice on the wealth grid itself (no interpolation between
--       points, which would not commute with the transform).
-- Option `alpha_by` (wealth or saving) adds 0.5 per unit of that state or
-- action to the risk aversion: the certainty equivalent then moves into the
-- state's or the action's loop (test_differential_models.c).  Option
-- `labor=true` adds a choice to work (one more unit of consumption), looped
-- outside saving: the continuation does not read it, so a simulation on
-- the CPU keeps each subject's row of the lottery's CE (gen/emit.c, "the
-- state's row"; test_simulate.c).
-- Option `income=ar1` makes income a Tauchen AR(1) of 3 nodes one standard
-- deviation apart (log income; consumption reads exp(income), and the
-- params need no income_level or income_transition): a subject beyond the
-- outer node takes that node's row as its lottery (test_epstein_zin.c).
-- tests/integration/test_epstein_zin.c solves both.
local lcm = require("lcm")

local variant = lcm.option("variant", "ez")
local alpha_by = lcm.option("alpha_by", "none")
local R = lcm.categorical{ "alive", "dead", name = "Regime" }
local Income = lcm.categorical{ "low", "high", name = "Income" }
local wealth = lcm.linspace{ start = 0, stop = 10, n_points = 21 }
local with_labor = lcm.option("labor", false)
local ar1 = lcm.option("income", "markov") == "ar1"

local functions = {
  consumption = ar1 and function(wealth, income, saving) return wealth + math.exp(income) - saving end
    or function(wealth, income, saving, income_level) return wealth + income_level[income] - saving end,
}
local actions = { saving = wealth }
if with_labor then
  actions = { { "labor", lcm.discrete(lcm.categorical{ "rest", "work", name = "Labor" }) }, { "saving", wealth } }
  functions.consumption = function(wealth, income, saving, labor, income_level)
    return wealth + income_level[income] + labor - saving
  end
end
local risk_aversion, bequest
if variant == "ez" then
  functions.utility = function(consumption) return consumption end
  functions.H = function(utility, E_next_V, discount_factor, rho)
    return lcm.power_mean({ utility, E_next_V }, { 1 - discount_factor, discount_factor }, 1 - rho)
  end
  risk_aversion = function(alpha) return alpha end
  if alpha_by == "wealth" then
    risk_aversion = function(alpha, wealth) return alpha + 0.5 * wealth end
  elseif alpha_by == "saving" then
    risk_aversion = function(alpha, saving) return alpha + 0.5 * saving end
  end
  bequest = function(wealth, bequest_floor, bequest_weight) return bequest_floor + bequest_weight * wealth end
elseif variant == "eu" then
  functions.utility = function(consumption, discount_factor, rho)
    return (1 - discount_factor) * consumption ^ (1 - rho) / (1 - rho)
  end
  bequest = function(wealth, bequest_floor, bequest_weight, rho)
    return (bequest_floor + bequest_weight * wealth) ^ (1 - rho) / (1 - rho)
  end
else
  error("variant must be ez or eu")
end

local alive = lcm.regime{
  active = function(age) return age < 3 end,
  states = {
    income = ar1 and lcm.tauchen_ar1{ n_points = 3, gauss_hermite = false, rho = 0.9, sigma = 0.3, mu = 0, n_std = 1 }
      or lcm.discrete(Income),
    wealth = wealth,
  },
  actions = actions,
  functions = functions,
  constraints = { positive_consumption = function(consumption) return consumption:gt(0) end },
  state_transitions = {
    income = not ar1 and lcm.markov(function(income, income_transition) return income_transition[income] end) or nil,
    wealth = function(saving) return saving end,
  },
  transition = lcm.markov(function(period, survival)
    return { alive = survival[period], dead = 1 - survival[period] }
  end),
  risk_aversion = risk_aversion,
}

local dead = lcm.regime{
  terminal = true,
  states = { wealth = wealth },
  functions = { utility = bequest },
}

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 3 },
  regime_ids = R,
  regimes = { alive = alive, dead = dead },
}
