-- fvv_2018.lua - the life-cycle model of Fernández-Villaverde & Zarruk
-- Valencia (2018), "A Practical Guide to Parallelization in Economics"
-- (their benchmark for C++, CUDA, Julia, ...): an agent lives T periods,
-- holds assets x on a grid of nx points, earns w e with log productivity
-- an AR(1) discretised by Tauchen's method (15 points, m = 1.5), and chooses
-- next period's assets x' on the same grid:
--
--   V_t(x, e) = max_{x'} c^(1 - sigma) / (1 - sigma) + beta E[V_{t+1}(x', e') | e],
--   c = (1 + r) x + e w - x' > 0,          V_{T+1} = 0.
--
-- Their parameters: T = 10, x in [0.1, 4.0], sigma = 2, beta = 0.97,
-- r = 0.07, w = 5, rho = 0.99, sigma_eps = 0.02058.  bench/fvv.sh times it
-- against bench/fvv_openmp.c, a hand-written OpenMP program of the same
-- loops, and checks that both give the same V.
--
-- Options (-D name=value):
--   nx     350      points of assets (and of the choice x')
--   ne     15       Tauchen points of log productivity
--   fixed  false    the preference and price parameters given at run time
--                   (models/fvv_2018.params.lua; changing them recompiles
--                   nothing); true: fixed in the model, constants in the
--                   kernels, and the model takes no parameters
local lcm = require("lcm")

local nx = lcm.option("nx", 350)
local ne = lcm.option("ne", 15)
local fixed = lcm.option("fixed", false)
local T = 10

local Regime = lcm.categorical{ "working", "last", name = "Regime" }
local assets = lcm.linspace{ start = 0.1, stop = 4.0, n_points = nx }

local states = {
  productivity = lcm.tauchen_ar1{ n_points = ne, gauss_hermite = false, rho = 0.99, sigma = 0.02058, mu = 0, n_std = 1.5 },
  assets = assets,
}
local actions = { next_assets = assets }
local functions = {
  consumption = function(assets, productivity, next_assets, interest_rate, wage)
    return (1 + interest_rate) * assets + math.exp(productivity) * wage - next_assets
  end,
  utility = function(consumption, risk_aversion)
    return consumption ^ (1 - risk_aversion) / (1 - risk_aversion)
  end,
}
local constraints = { positive_consumption = function(consumption) return consumption:gt(0) end }

local working = lcm.regime{
  active = function(age) return age < T - 1 end,
  states = states,
  actions = actions,
  functions = functions,
  constraints = constraints,
  state_transitions = { assets = function(next_assets) return next_assets end },
  transition = function(age) return lcm.where(age:ge(T - 2), Regime.last, Regime.working) end,
}

-- the last period: the same choice with no future (V_{T+1} = 0)
local last = lcm.regime{
  terminal = true,
  active = function(age) return age == T - 1 end,
  states = states,
  actions = actions,
  functions = functions,
  constraints = constraints,
}

return lcm.model{
  name = "fvv_2018",
  description = "Fernández-Villaverde & Zarruk Valencia (2018), life cycle, nx = " .. nx,
  ages = lcm.ages{ start = 0, n_periods = T },
  regime_ids = Regime,
  regimes = { working = working, last = last },
  fixed_params = fixed and { risk_aversion = 2.0, discount_factor = 0.97, interest_rate = 0.07, wage = 5.0 } or nil,
}
