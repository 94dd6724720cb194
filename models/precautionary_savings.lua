-- precautionary_savings.lua - consume or save wealth under income risk; the
-- benchmark model of pylcm (and, with log wealth, interest_rate = 0.04,
-- rho = 0.95, sigma = 0.1269, discount_factor = 0.96, the simplified
-- benchmark of Fella, Gallipoli & Pan 2019).
--
-- Options (lcmgen / lcm -D name=value):
--   n_periods          5
--   shock              rouwenhorst | tauchen | normal_gh   (income process)
--   wealth_grid        lin | log | irregular | runtime
--                      (irregular: the lin grid's points written out;
--                       runtime: points given as the parameter alive.wealth.points)
--   wealth_points      7
--   consumption_points 7
--   income_points      5
--   wealth_batch       0    batch_size of wealth (splay: chunks of that many points; V is the same)
--   consumption_stop   5    the largest consumption on the grid
--   solver             grid | egm   (grid search, or the endogenous grid method on
--                      savings_points (default 200) savings from 0 to 20; it
--                      uses no consumption grid)
-- The income process's parameters (mu, sigma, and rho for AR(1) shocks) are
-- run-time parameters: alive = { income = { ... } }.
local lcm = require("lcm")

local n_periods = lcm.option("n_periods", 5)
local shock = lcm.option("shock", "rouwenhorst")
local wealth_grid = lcm.option("wealth_grid", "lin")
local wealth_points = lcm.option("wealth_points", 7)
local consumption_points = lcm.option("consumption_points", 7)
local income_points = lcm.option("income_points", 5)
local wealth_batch = lcm.option("wealth_batch", 0)
local consumption_stop = lcm.option("consumption_stop", 5)
local solver = lcm.option("solver", "grid")
if solver ~= "grid" and solver ~= "egm" then error("option solver must be grid or egm, not '" .. solver .. "'", 0) end

local first_age, step = 20, 10
local final_age_alive = first_age + (n_periods - 2) * step

local R = lcm.categorical{ "alive", "dead", name = "Regime" }

local function wealth_on(kind)
  local start, stop = 1.0, 20.0
  local b = wealth_batch
  if kind == "lin" then return lcm.linspace{ start = start, stop = stop, n_points = wealth_points, batch_size = b } end
  if kind == "log" then return lcm.logspace{ start = start, stop = stop, n_points = wealth_points, batch_size = b } end
  if kind == "runtime" then return lcm.irregular{ n_points = wealth_points, batch_size = b } end
  if kind == "irregular" then
    -- the points of the lin grid (as numpy.linspace computes them)
    local points, h = {}, (stop - start) / (wealth_points - 1)
    for i = 0, wealth_points - 1 do points[i + 1] = start + i * h end
    points[wealth_points] = stop
    return lcm.irregular{ points = points, batch_size = wealth_batch }
  end
  error("option wealth_grid must be lin, log, irregular or runtime, not '" .. kind .. "'", 0)
end

local function income_process(kind)
  if kind == "rouwenhorst" then return lcm.rouwenhorst_ar1{ n_points = income_points } end
  if kind == "tauchen" then return lcm.tauchen_ar1{ n_points = income_points, gauss_hermite = false, n_std = 3 } end
  if kind == "normal_gh" then return lcm.normal_iid{ n_points = income_points, gauss_hermite = true } end
  error("option shock must be rouwenhorst, tauchen or normal_gh, not '" .. kind .. "'", 0)
end

local alive = lcm.regime{
  active = function(age) return age <= final_age_alive end,
  states = { income = income_process(shock), wealth = wealth_on(wealth_grid) },
  actions = { consumption = lcm.linspace{ start = 0.1, stop = consumption_stop, n_points = consumption_points } },
  functions = { utility = function(consumption) return math.log(consumption) end },
  constraints = { wealth_constraint = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = {
    wealth = function(wealth, consumption, income, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + math.exp(income)
    end,
  },
  transition = function(age)
    return lcm.where(age:ge(final_age_alive), R.dead, R.alive)
  end,
  solver = solver == "egm" and
    lcm.egm{ savings = lcm.linspace{ start = 0, stop = 20, n_points = lcm.option("savings_points", 200) } } or nil,
}

local dead = lcm.regime{
  terminal = true,
  active = function(age) return age > final_age_alive end,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "precautionary_savings",
  ages = lcm.ages{ start = first_age, step = step, n_periods = n_periods },
  regime_ids = R,
  regimes = { alive = alive, dead = dead },
}
