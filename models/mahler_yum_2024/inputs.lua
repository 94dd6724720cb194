-- inputs.lua - the parameters of models/mahler_yum_2024.lua from the
-- structural parameters (estimates.lua), as pylcm's create_inputs makes them.
--
--   local inputs = require("mahler_yum_2024.inputs")
--   return inputs.model_params(require("mahler_yum_2024.estimates"), "benchmark")
--
-- An optional third argument is the model's first age (its option first_age,
-- default 25): the arrays by period then start at that age.
--
-- variant "benchmark" reproduces what pylcm's benchmark (commit 64cf042c)
-- passes to its solver; "paper" applies the input fixes of pylcm's later
-- "Fix four bugs in the mahler_yum_2024 example": a cubic through the cost
-- knots can dip below zero between non-negative knots, which would make work
-- or effort a good, so it is clamped at zero; and the wage profile is divided
-- by the mean of the wage shock, E[e^theta] E[e^z] = cosh(0.2898)
-- exp(sigx / (2 (1 - rho^2))) (the benchmark, like the authors' Fortran, reads
-- sigx as a standard deviation and squares each variance twice, which leaves
-- the mean essentially uncorrected).
local M = {}

local first_age, age_step, n_periods = 25, 2, 39
local retirement_period = 20          -- age 65
local shock_persistence = 0.975
local productivity_type_log = 0.2898  -- the permanent productivity types are exp(-/+ this)
local average_earnings = 57706.57 / 48201   -- in the model's units of wealth

-- The cubic through four (period, value) knots (pylcm fits an interpolating
-- cubic spline; through four points it is this polynomial), at period t.
local function cubic_through(knots, t)
  local value = 0
  for i, ki in ipairs(knots) do
    local term = ki[2]
    for j, kj in ipairs(knots) do
      if j ~= i then term = term * (t - kj[1]) / (ki[1] - kj[1]) end
    end
    value = value + term
  end
  return value
end

-- Knots keyed by age as {period, value} pairs in age order.
local function knots_by_period(by_age)
  local ages = {}
  for age in pairs(by_age) do ages[#ages + 1] = age end
  table.sort(ages)
  local knots = {}
  for _, age in ipairs(ages) do knots[#knots + 1] = { (age - first_age) // age_step, by_age[age] } end
  return knots
end

-- The cost at period p, as pylcm builds its grids: the cubic read at p + 1
-- (pylcm's period range starts at 1, so period p takes the value of the age
-- two years older), held at the last knot from the last knot's period on.
local function cost_path(by_age, clamp)
  local knots = knots_by_period(by_age)
  local last = knots[#knots]
  local path = {}
  for p = 0, n_periods - 1 do
    local v = p + 1 >= last[1] and last[2] or cubic_through(knots, p + 1)
    if clamp then v = math.max(v, 0) end
    path[p + 1] = v
  end
  return path
end

local function income_normalization(sigx, variant)
  if variant == "paper" then
    local cosh = (math.exp(productivity_type_log) + math.exp(-productivity_type_log)) / 2
    return cosh * math.exp(sigx / (1 - shock_persistence ^ 2) / 2)
  end
  local shock_sd = ((sigx ^ 2) / (1 - shock_persistence ^ 2)) ^ 0.5
  return math.exp(((productivity_type_log ^ 2) ^ 2) / 2) * math.exp(((shock_sd ^ 2) ^ 2) / 2)
end

-- The arrays over the paper's periods from the one of `age` on.
local function from_age(list, age)
  local out = {}
  for k = (age - first_age) // age_step + 1, #list do out[#out + 1] = list[k] end
  return out
end

function M.model_params(est, variant, model_first_age)
  assert(variant == "benchmark" or variant == "paper", "variant must be 'benchmark' or 'paper'")
  model_first_age = model_first_age or first_age
  local clamp = variant == "paper"
  local educations, healths = { "low", "high" }, { "bad", "good" }

  -- work disutility [period][education][health]: 0 once retired; the low-educated's
  -- is exp(education_disutility_adjustment) times the high-educated's
  local work = {}
  for _, health in ipairs(healths) do work[health] = cost_path(est.work_disutility[health], clamp) end
  local work_disutility_grid, effort_cost_grid = {}, {}
  local effort = {}
  for _, education in ipairs(educations) do
    effort[education] = {}
    for _, health in ipairs(healths) do effort[education][health] = cost_path(est.effort_cost[education][health], clamp) end
  end
  for p = 0, n_periods - 1 do
    local w, e = {}, {}
    for _, education in ipairs(educations) do
      local factor = education == "low" and math.exp(est.education_disutility_adjustment) or 1
      w[education], e[education] = {}, {}
      for _, health in ipairs(healths) do
        w[education][health] = p < retirement_period and work[health][p + 1] * factor or 0
        e[education][health] = effort[education][health][p + 1]
      end
    end
    work_disutility_grid[p + 1], effort_cost_grid[p + 1] = w, e
  end

  local envelope = {}
  for t = 0, n_periods - 1 do
    envelope[t + 1] = math.max(est.adjustment_cost[1] * math.exp(est.adjustment_cost[2] * t), 0)
  end

  local inc = est.income_process
  local normalization = income_normalization(inc.sigx, variant)
  -- the pension replaces a share of the income of the last working period,
  -- full time in good health at the mean shock
  local pension_base = {}
  for i, education in ipairs(educations) do
    local t = retirement_period - 1
    pension_base[i] = inc.y1[education] * math.exp(inc.yt_s[education] * t + inc.yt_sq[education] * t ^ 2) / normalization
  end

  return {
    work_disutility_grid = from_age(work_disutility_grid, model_first_age),
    effort_cost_grid = from_age(effort_cost_grid, model_first_age),
    effort_elasticity = est.effort_elasticity,
    utility_constant = est.utility_constant,
    health_consumption_penalty = est.health_consumption_penalty,
    adjustment_cost_envelope = from_age(envelope, model_first_age),
    y1 = inc.y1, yt_s = inc.yt_s, yt_sq = inc.yt_sq, wagep = inc.wagep,
    income_normalization = normalization,
    productivity_shock_scale = math.sqrt(inc.sigx),
    pension_base = pension_base,
    pension_replacement_rate = est.pension_replacement_rate,
    discount_factor_by_type = { est.discount_factor.mean - est.discount_factor.std,
                                est.discount_factor.mean + est.discount_factor.std },
    gross_interest_rate = 1.04 ^ 2,       -- two years at 4%
    avg_earnings = average_earnings,
    min_consumption = 0.10 * average_earnings,
    tax_scale = 1 - 0.321,
    labor_tax_rate = 0.128,
    benefit_rate = 0.115,
  }
end

return M
