-- mahler_yum_2024.lua - Mahler & Yum (2024), "Lifestyle Behaviors and
-- Wealth-Health Gaps in Germany", Econometrica 92(5): a life cycle from 25 to
-- 101 in two-year periods with health, a healthy-lifestyle effort that becomes
-- a habit, labour supply, saving, survival risk and four fixed types.
--
-- Ported from the paper's equations and pylcm's example
-- (lcm_examples.mahler_yum_2024, the version its benchmark runs, commit
-- 64cf042c); docs/models.md writes the equations out.  Names of regimes,
-- states, actions and parameters are pylcm's, so results compare by name.
--
-- Variants (-D variant=...):
--   benchmark (default)  the model exactly as pylcm's benchmark solves it, the
--                        version ../shared/reference/mahler_yum_2024 holds
--                        results of: the pension is scaled by the permanent
--                        productivity type.
--   paper                the paper's pension P(e), which depends on education
--                        only (pylcm fixed this in August 2026, "Fix four bugs
--                        in the mahler_yum_2024 example").  Its other three
--                        fixes concern the inputs, not the model: solve it with
--                        mahler_yum_2024_paper.params.lua (cost cubics clamped
--                        at zero, the wage shock's mean E[e^theta] E[e^z]); its
--                        initial conditions (mahler_yum_2024.initial.lua, which
--                        reads the option) round the initial habit to the
--                        nearest effort level.
--
-- Grid sizes (-D, for tests and experiments; the defaults are the paper's):
--   wealth_points 50, effort_points 40, shock_points 5, cost_points 5.
-- first_age (default 25, odd, at most 99): the first age modelled.  A later
-- one keeps the paper's ages from there on (V at those ages is the same),
-- given parameters made for it: mahler_yum_2024/inputs.lua takes the age.
local lcm = require("lcm")

local variant = lcm.option("variant", "benchmark")
if variant ~= "benchmark" and variant ~= "paper" then
  error("option variant must be 'benchmark' or 'paper', not '" .. variant .. "'", 0)
end
local wealth_points = lcm.option("wealth_points", 50)
local effort_points = lcm.option("effort_points", 40)
local shock_points = lcm.option("shock_points", 5)
local cost_points = lcm.option("cost_points", 5)
local first_age = lcm.option("first_age", 25)

-- Time: ages 25, 27, ..., 101 in the paper; nobody is alive at 101.
-- Retirement is mandatory from 65, when the pension starts and benefits stop.
local paper_first_age, age_step, last_age = 25, 2, 101
local retirement_age = 65
if first_age < paper_first_age or first_age > last_age - age_step or (first_age - paper_first_age) % age_step ~= 0 then
  error("option first_age must be one of 25, 27, ..., 99, not " .. first_age, 0)
end

local Regime = lcm.categorical{ "alive", "dead", name = "RegimeId" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }
local LaborSupply = lcm.categorical{ "retired", "part_time", "full_time", name = "LaborSupply" }
local Education = lcm.categorical{ "low", "high", name = "Education" }
local ProductivityType = lcm.categorical{ "low", "high", name = "ProductivityType" }
local HealthType = lcm.categorical{ "low", "high", name = "HealthType" }
local DiscountType = lcm.categorical{ "small", "large", name = "DiscountType" }
local Effort = lcm.categorical(effort_points)   -- level k is the effort k / (effort_points - 1)

-- Wealth (and saving, which is next period's wealth): 30 (e^(i ln(100)/(n-1)) - 1) / 99,
-- dense near zero.
local wealth_grid = {}
for i = 0, wealth_points - 1 do
  wealth_grid[#wealth_grid + 1] = 30 * (math.exp(math.log(100) / (wealth_points - 1) * i) - 1) / 99
end
local wealth = lcm.irregular{ points = wealth_grid }

-- Effort levels on [0, 1], spaced as numpy.linspace spaces them.
local effort_grid = {}
for k = 0, effort_points - 1 do effort_grid[k + 1] = k * (1 / (effort_points - 1)) end
effort_grid[effort_points] = 1

-- Survival over two years by age, education and health, from the authors'
-- data (columns Healthy and Unhealthy; row k is age 25 + 2k).  The data's last
-- row is not used: 99 is the last age alive, so its survival is 0.
local survival_by_education = {
  low = lcm.read_table("mahler_yum_2024/surv_HS.txt"),
  high = lcm.read_table("mahler_yum_2024/surv_CL.txt"),
}
local n_periods = (last_age - first_age) // age_step + 1
local survival = {}
for period = 0, n_periods - 1 do
  local age = first_age + age_step * period
  local row = (age - paper_first_age) // age_step + 1
  local by_education = {}
  for _, education in ipairs(lcm.labels(Education)) do
    local columns = survival_by_education[education].columns
    local alive_next = age < last_age - age_step
    by_education[education] = {
      bad = alive_next and columns.Unhealthy[row] or 0,
      good = alive_next and columns.Healthy[row] or 0,
    }
  end
  survival[period + 1] = by_education
end

-- Age effects in the health logit: a step function of age, each value holding
-- from its age until the next one's.
local health_age_steps = { { 25, 0.0 }, { 35, -0.289 }, { 45, -0.644 }, { 55, -0.881 }, { 65, -1.138 }, { 75, -1.586 } }
local health_age_effects = {}
for period = 0, n_periods - 1 do
  local age = first_age + age_step * period
  for _, step in ipairs(health_age_steps) do
    if age >= step[1] then health_age_effects[period + 1] = step[2] end
  end
end

local alive = lcm.regime{
  active = function(age) return age < last_age end,
  states = {
    { "health", lcm.discrete(Health) },
    { "productivity_shock", lcm.rouwenhorst_ar1{ n_points = shock_points, rho = 0.975, sigma = 1, mu = 0 } },
    { "lagged_effort", lcm.discrete(Effort) },
    { "adjustment_cost", lcm.uniform_iid{ n_points = cost_points, start = 0, stop = 1 } },
    { "education", lcm.discrete(Education) },
    { "productivity", lcm.discrete(ProductivityType) },
    { "health_type", lcm.discrete(HealthType) },
    { "discount_type", lcm.discrete(DiscountType) },
    { "wealth", wealth },
  },
  actions = {
    { "labor_supply", lcm.discrete(LaborSupply) },
    { "saving", wealth },
    { "effort", lcm.discrete(Effort) },
  },
  functions = {
    utility = function(consumption_utility, work_disutility, effort_cost, adjustment_cost_penalty)
      return consumption_utility - work_disutility - effort_cost - adjustment_cost_penalty
    end,
    effort_value = function(effort, effort_grid) return effort_grid[effort] end,
    lagged_effort_value = function(lagged_effort, effort_grid) return effort_grid[lagged_effort] end,
    -- Disutility of work: quadratic in hours (labour_supply / 2 of full time).
    work_disutility = function(period, education, health, labor_supply, work_disutility_grid)
      return work_disutility_grid[period][education][health] * (labor_supply / 2) ^ 2 / 2
    end,
    -- Cost of effort: isoelastic with elasticity effort_elasticity.
    effort_cost = function(period, education, health, effort_value, effort_elasticity, effort_cost_grid)
      local power = 1 + 1 / effort_elasticity
      return effort_cost_grid[period][education][health] * effort_value ^ power / power
    end,
    -- Changing effort from last period's habit costs the drawn adjustment cost.
    adjustment_cost_penalty = function(period, effort, lagged_effort, adjustment_cost, adjustment_cost_envelope)
      return lcm.where(effort:ne(lagged_effort), adjustment_cost * adjustment_cost_envelope[period], 0)
    end,
    -- CRRA consumption utility, scaled down in bad health, plus a constant
    -- that makes life worth living.
    consumption_utility = function(health, consumption, sigma, health_consumption_penalty, utility_constant)
      local scale = lcm.where(health:eq("good"), 1, health_consumption_penalty)
      return scale * (consumption ^ (1 - sigma) / (1 - sigma)) + scale * utility_constant
    end,
    -- The government tops consumption up to a floor (no asset test).
    consumption = function(net_income, wealth, saving, gross_interest_rate, min_consumption)
      return lcm.max(net_income + wealth * gross_interest_rate - saving, min_consumption)
    end,
    -- The wage profile is written in the paper's periods (age 25 is 0).
    profile_period = function(age) return (age - paper_first_age) / age_step end,
    base_income = function(profile_period, health, education, y1, yt_s, yt_sq, wagep, income_normalization)
      return y1[education] * math.exp(yt_s[education] * profile_period + yt_sq[education] * profile_period ^ 2)
        * (1 - wagep[education] * (1 - health)) / income_normalization
    end,
    scaled_productivity_shock = function(productivity_shock, productivity_shock_scale)
      return productivity_shock * productivity_shock_scale
    end,
    income = function(labor_supply, productivity, scaled_productivity_shock, base_income, productivity_type_multiplier)
      return base_income * (labor_supply / 2) * productivity_type_multiplier[productivity]
        * math.exp(scaled_productivity_shock)
    end,
    -- A progressive labour tax (HSV form).
    taxed_income = function(income, tax_scale, labor_tax_rate, avg_earnings)
      return tax_scale * income ^ (1 - labor_tax_rate) * avg_earnings ^ labor_tax_rate
    end,
    -- Welfare benefits for the non-working in bad health, until retirement.
    benefits = function(age, health, labor_supply, benefit_rate, avg_earnings)
      local eligible = lcm.all(health:eq("bad"), labor_supply:eq("retired"), age:lt(retirement_age))
      return lcm.where(eligible, benefit_rate * avg_earnings, 0)
    end,
    pension = variant == "paper"
      and function(age, education, pension_base, pension_replacement_rate)
        return lcm.where(age:ge(retirement_age), pension_base[education] * pension_replacement_rate, 0)
      end
      or function(age, education, productivity, pension_base, pension_replacement_rate, productivity_type_multiplier)
        return lcm.where(age:ge(retirement_age),
          pension_base[education] * productivity_type_multiplier[productivity] * pension_replacement_rate, 0)
      end,
    net_income = function(taxed_income, pension, benefits) return taxed_income + pension + benefits end,
    discount_factor = function(discount_type, discount_factor_by_type) return discount_factor_by_type[discount_type] end,
  },
  constraints = {
    retirement_constraint = function(age, labor_supply)
      return lcm.any(age:lt(retirement_age), labor_supply:eq("retired"))
    end,
    savings_constraint = function(net_income, wealth, saving, gross_interest_rate)
      return saving:le(net_income + wealth * gross_interest_rate)
    end,
  },
  state_transitions = {
    wealth = function(saving) return saving end,
    lagged_effort = function(effort) return effort end,
    -- Good health next period: a logit in age, health, types and effort today
    -- and yesterday.
    health = lcm.markov(function(period, health, education, health_type, effort_value, lagged_effort_value,
                                 health_intercept, health_age_effects, college_coefficient,
                                 good_health_coefficient, health_type_coefficient,
                                 health_effort_coefficient, lagged_health_effort_coefficient)
      local y = health_intercept + health_age_effects[period] + education * college_coefficient
        + health * good_health_coefficient + health_type * health_type_coefficient
        + effort_value * health_effort_coefficient + lagged_effort_value * lagged_health_effort_coefficient
      local good = math.exp(y) / (1 + math.exp(y))
      return { bad = 1 - good, good = good }
    end),
    education = lcm.fixed,
    productivity = lcm.fixed,
    health_type = lcm.fixed,
    discount_type = lcm.fixed,
  },
  transition = lcm.markov(function(period, education, health, survival)
    local p = survival[period][education][health]
    return { alive = p, dead = 1 - p }
  end),
}

local dead = lcm.regime{
  terminal = true,
  active = function(age) return age > first_age end,
  states = { discount_type = lcm.discrete(DiscountType) },
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "mahler_yum_2024",
  description = "Mahler & Yum (2024), variant " .. variant,
  ages = lcm.ages{ start = first_age, stop = last_age, step = age_step },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
  fixed_params = {
    effort_grid = effort_grid,
    sigma = 2.0,
    productivity_type_multiplier = { math.exp(-0.2898), math.exp(0.2898) },
    health_intercept = -0.906,
    health_age_effects = health_age_effects,
    good_health_coefficient = 2.311,
    health_type_coefficient = 0.632,
    college_coefficient = 0.238,
    health_effort_coefficient = 0.693,
    lagged_health_effort_coefficient = 0.734,
    survival = survival,
  },
}
