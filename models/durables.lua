-- durables.lua - the durable consumption model of Druedahl (2021), "A Guide
-- on Solving Non-convex Consumption-Saving Models", Computational Economics
-- 58(3), section 4 (the one-durable version), solved by grid search (VFI).
--
-- Equations, parameters and grids from the authors' code,
-- github.com/NumEconCopenhagen/ConsumptionSavingNotebooks (commit 202278a5),
-- folder "02. DurableConsumptionModel": DurableConsumptionModel.py (setup,
-- create_grids), utility.py (func_nopar), trans.py (p_plus_func,
-- n_plus_func, m_plus_func, x_plus_func), last_period.py (solve),
-- vfi.py (value_of_choice) and consav's quadrature (create_PT_shocks with
-- pi = 0: mean-one log-normal shocks on Gauss-Hermite nodes).
--
-- The paper, each period t = 0 .. T-1, states m (cash on hand), n (durable
-- stock), p (permanent income):
--   keep:   choose c,     d = n,  a = m - c
--   adjust: choose d, c,  a = x - c - d,   x = m + (1 - tau) n
--   u(c, d) = (c^alpha (d + d_ubar)^(1 - alpha))^(1 - rho) / (1 - rho)
--   v_t = max(keep, adjust) of u(c, d) + beta E v_{t+1},   a >= 0
--   p' = clip(psi' p, p_min, p_max),  n' = min((1 - delta) d, n_max),
--   m' = R a + xi' p',  log psi' ~ N(-sigma_psi^2/2, sigma_psi^2),
--   log xi' ~ N(-sigma_xi^2/2, sigma_xi^2), independent
--   last period T-1: no future; keep consumes c = m, adjust c = x - d.
--
-- In the model language a next state cannot read next period's shock, so the
-- states here are the ones before the shocks: a_lag (last period's end-of-
-- period assets a_{t-1}), p_lag (p_{t-1}), n (this period's durable stock)
-- and this period's shocks psi and xi (IID processes); p and m are functions
-- of them (p = clip(psi p_lag), m = R a_lag + xi p), so the problem solved is
-- the paper's exactly. V is therefore a function of (a_lag, p_lag, n, psi, xi)
-- rather than of (m, n, p): the solver's expected next V over psi' and xi' is
-- the paper's post-decision value w(p, n, a), interpolated linearly in
-- (a, p, n) (the paper interpolates -1/v in (p, n, m) and (p, x)).  The
-- paper's initial conditions (simulate: p0, d0, a0 before the period-0 shocks)
-- are exactly these states.
--
-- Three ways to solve it (option solver):
--   vfi         (default) grid search over shares, so that every grid point
--               is feasible: keep c = c_share m; adjust d = d_share x,
--               c = c_share (x - d).  In the last period c takes everything
--               left and d <= n_max.
--   negm        the nested endogenous grid method: the actions are levels,
--               d_new (the adjuster's durable, on nonlinspace(0, n_max,
--               d_points, 1.1); a keeper uses its first point) and c (last,
--               by EGM on savings_points savings from 0 to a_max), so c is
--               solved by the Euler equation for each durable (the keeper's
--               problem with d = n; the adjuster's for each d_new, chosen
--               over those by the same Q: DC-EGM's upper envelope over keep,
--               adjust and the durables).  The last period is its closed
--               form: keep u(m, n), or adjust with d = clip((1 - alpha) x -
--               alpha d_ubar, 0, n_max) (the Cobb-Douglas optimum), c = x - d.
--   vfi_levels  grid search over negm's actions, c on nonlinspace(1e-6, m_max
--               + 1, c_points, 1.1) with the budget c <= resources, the same last
--               period: negm's grid-search twin, whose Euler errors and V
--               converge to negm's as c_points grows.
--
-- Options (lcmgen / lcm -D name=value), the paper's values as defaults:
--   n_periods   5     T
--   a_points    100   Na, grid of a_lag: nonlinspace(0, a_max = m_max + 1 = 11, Na, 1.1)
--   p_points    50    Np, grid of p_lag: nonlinspace(p_min = 1e-4, p_max = 3, Np, 1.1)
--   n_points    50    Nn, grid of n:     nonlinspace(0, n_max = 3, Nn, 1.1)
--   psi_points  5     Npsi, Gauss-Hermite nodes (odd)
--   xi_points   5     Nxi,  Gauss-Hermite nodes (odd)
--   c_points    100   c_share on linspace(1/c_points, 1, c_points)
--   d_points    100   d_share on linspace(0, 1 - 1/d_points, d_points) (negm: d_new's points)
--   savings_points 100 negm: the savings grid, nonlinspace(0, a_max, savings_points, 1.1)
--   solver      vfi   vfi | negm | vfi_levels (above)
-- (nonlinspace is consav.grids.nonlinspace: y_0 = lo,
--  y_i = y_{i-1} + (hi - y_{i-1}) / (n - i)^phi.)
-- Parameters (models/durables.params.lua): discount_factor (beta), rho, alpha,
-- d_ubar, R, tau, delta, and the shocks' mu and sigma.
local lcm = require("lcm")

local T = lcm.option("n_periods", 5)
local Na = lcm.option("a_points", 100)
local Np = lcm.option("p_points", 50)
local Nn = lcm.option("n_points", 50)
local Npsi = lcm.option("psi_points", 5)
local Nxi = lcm.option("xi_points", 5)
local Nc = lcm.option("c_points", 100)
local Nd = lcm.option("d_points", 100)
local Nsav = lcm.option("savings_points", 100)
local solver = lcm.option("solver", "vfi")
if T < 2 then error("option n_periods must be at least 2", 0) end
if solver ~= "vfi" and solver ~= "negm" and solver ~= "vfi_levels" then
  error("option solver must be vfi, negm or vfi_levels, not '" .. solver .. "'", 0)
end

-- the bounds of the grids (DurableConsumptionModel.py, setup)
local p_min, p_max = 1e-4, 3.0
local n_max = 3.0
local m_max = 10.0
local a_max = m_max + 1.0

local function nonlinspace(lo, hi, n, phi)
  local y = { lo }
  for i = 1, n - 1 do y[i + 1] = y[i] + (hi - y[i]) / (n - i) ^ phi end
  y[n] = hi
  return y
end

local Regime = lcm.categorical{ "alive", "last", name = "Regime" }
local Adjust = lcm.categorical{ "keep", "adjust", name = "Adjust" }

local function states()
  return {
    { "a_lag", lcm.irregular{ points = nonlinspace(0, a_max, Na, 1.1) } },
    { "p_lag", lcm.irregular{ points = nonlinspace(p_min, p_max, Np, 1.1) } },
    { "n", lcm.irregular{ points = nonlinspace(0, n_max, Nn, 1.1) } },
    { "psi", lcm.lognormal_iid{ n_points = Npsi, gauss_hermite = true } },
    { "xi", lcm.lognormal_iid{ n_points = Nxi, gauss_hermite = true } },
  }
end

local d_share_grid = lcm.linspace{ start = 0, stop = 1 - 1 / Nd, n_points = Nd }

-- the functions both regimes share; `c` and `d` differ
local function functions(c, d)
  return {
    p = function(p_lag, psi) return lcm.clip(psi * p_lag, p_min, p_max) end,
    m = function(a_lag, p, xi, R) return R * a_lag + xi * p end,
    x = function(m, n, tau) return m + (1 - tau) * n end,
    d = d,
    -- what is left for c and a once the durable is chosen
    resources = function(adjust, x, d, m) return lcm.where(adjust:eq("adjust"), x - d, m) end,
    c = c,
    utility = function(c, d, alpha, rho, d_ubar)
      return (c ^ alpha * (d + d_ubar) ^ (1 - alpha)) ^ (1 - rho) / (1 - rho)
    end,
  }
end

-- keeping uses no durable share: one (the first) point of its grid
local function keep_once(adjust, d_share)
  return lcm.any(adjust:eq("adjust"), d_share:le(0))
end

local alive = lcm.regime{
  active = function(age) return age < T - 1 end,
  states = states(),
  actions = {
    { "adjust", lcm.discrete(Adjust) },
    { "d_share", d_share_grid },
    { "c_share", lcm.linspace{ start = 1 / Nc, stop = 1, n_points = Nc } },
  },
  functions = functions(function(c_share, resources) return c_share * resources end,
    function(adjust, d_share, x, n) return lcm.where(adjust:eq("adjust"), d_share * x, n) end),
  constraints = { keep_once = keep_once },
  state_transitions = {
    a_lag = function(resources, c) return resources - c end,
    p_lag = function(p) return p end,
    n = function(d, delta) return lcm.min((1 - delta) * d, n_max) end,
  },
  transition = function(age) return lcm.where(age:ge(T - 2), Regime.last, Regime.alive) end,
}

local last = lcm.regime{
  terminal = true,
  active = function(age) return age == T - 1 end,
  states = states(),
  actions = { { "adjust", lcm.discrete(Adjust) }, { "d_share", d_share_grid } },
  -- the last period caps the new durable at n_max (last_period.py: d_high = min(x, n_max))
  functions = functions(function(resources) return resources end,
    function(adjust, d_share, x, n) return lcm.where(adjust:eq("adjust"), lcm.min(d_share * x, n_max), n) end),
  constraints = { keep_once = keep_once },
}

if solver ~= "vfi" then
  -- the levels: the adjuster's durable d_new and consumption c (negm, vfi_levels)
  -- the same utility with each good's power apart, so that c enters once:
  -- the marginal utility then has a closed-form inverse (EGM needs one)
  local function u(c, d, alpha, rho, d_ubar)
    return c ^ (alpha * (1 - rho)) * (d + d_ubar) ^ ((1 - alpha) * (1 - rho)) / (1 - rho)
  end
  local function level_functions()
    return {
      p = function(p_lag, psi) return lcm.clip(psi * p_lag, p_min, p_max) end,
      m = function(a_lag, p, xi, R) return R * a_lag + xi * p end,
      x = function(m, n, tau) return m + (1 - tau) * n end,
      d = function(adjust, d_new, n) return lcm.where(adjust:eq("adjust"), d_new, n) end,
      resources = function(adjust, x, d_new, m) return lcm.where(adjust:eq("adjust"), x - d_new, m) end,
      utility = u,
    }
  end
  alive = lcm.regime{
    active = function(age) return age < T - 1 end,
    states = states(),
    actions = {
      { "adjust", lcm.discrete(Adjust) },
      { "d_new", lcm.irregular{ points = nonlinspace(0, n_max, Nd, 1.1) } },
      -- by EGM the grid only names the action (its points are not used)
      { "c", lcm.irregular{ points = nonlinspace(1e-6, m_max + 1, Nc, 1.1) } },
    },
    functions = level_functions(),
    constraints = {
      keep_once = function(adjust, d_new) return lcm.any(adjust:eq("adjust"), d_new:le(0)) end,
      budget = function(c, resources) return c:le(resources) end,
    },
    state_transitions = {
      a_lag = function(resources, c) return resources - c end,
      p_lag = function(p) return p end,
      n = function(d, delta) return lcm.min((1 - delta) * d, n_max) end,
    },
    transition = function(age) return lcm.where(age:ge(T - 2), Regime.last, Regime.alive) end,
    solver = solver == "negm" and lcm.egm{
      savings = lcm.irregular{ points = nonlinspace(0, a_max, Nsav, 1.1) }, state = "a_lag", action = "c",
    } or nil,
  }
  -- the last period in closed form: keep, or adjust to the Cobb-Douglas optimum
  local closed = level_functions()
  closed.d, closed.resources = nil, nil
  closed.d_adjusted = function(x, alpha, d_ubar) return lcm.clip((1 - alpha) * x - alpha * d_ubar, 0, n_max) end
  closed.utility = function(m, n, x, d_adjusted, alpha, rho, d_ubar)
    return lcm.max(u(m, n, alpha, rho, d_ubar), u(x - d_adjusted, d_adjusted, alpha, rho, d_ubar))
  end
  last = lcm.regime{
    terminal = true,
    active = function(age) return age == T - 1 end,
    states = states(),
    functions = closed,
  }
end

return lcm.model{
  name = "durables",
  description = "Druedahl (2021): durable consumption with non-convex adjustment costs",
  ages = lcm.ages{ start = 0, step = 1, n_periods = T },
  regime_ids = Regime,
  regimes = { alive = alive, last = last },
}
