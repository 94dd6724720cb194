-- expected_v.lua - shock processes and Markov states whose expectation the
-- solve reads from a table of the expected next V (ir/precompute.h, "ev"):
-- in the working regime an AR(1) income, an IID luck shock, a Markov health
-- state (rows of health_transition at the current health), a Markov mood of
-- fixed probabilities (one row) and a sharded type; the working regime moves
-- to the retired one,
-- whose income process continues the working one's (a target regime other
-- than its own).  Checked against the interpreter and against the inline
-- sum over the nodes (tests/integration/test_differential_models.c).
--
-- Options: shard=true shards the type (distributed), splay=true splays wealth,
-- retired_wealth_points (23) the retired regime's wealth points: at 20000 its
-- expected V outgrows the working regime's table bound, and the working
-- kernels sum over it inline (tests/unit/test_precompute.c).
local lcm = require("lcm")

local shard = lcm.option("shard", false)
local splay = lcm.option("splay", false)
local retired_wealth_points = lcm.option("retired_wealth_points", 23)

local Regime = lcm.categorical{ "working", "retired", "dead", name = "Regime" }
local Type = lcm.categorical{ "low", "high", name = "Type" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }
local Labor = lcm.categorical{ "work", "retire", name = "Labor" }
local Mood = lcm.categorical{ "low", "high", name = "Mood" }

local kind = lcm.discrete(Type, { distributed = shard })
local health = lcm.discrete(Health)
local wealth = lcm.linspace{ start = 0.5, stop = 30, n_points = 23, batch_size = splay and 5 or 0 }
local consumption = lcm.linspace{ start = 0.5, stop = 20, n_points = 31 }

local function alive(age) return age < 80 end
local budget = function(consumption, wealth) return consumption:le(wealth) end
local health_next = lcm.markov(function(health, health_transition) return health_transition[health] end)

local working = lcm.regime{
  active = alive,
  states = {
    kind = kind,
    income = lcm.rouwenhorst_ar1{ n_points = 5 },
    luck = lcm.normal_iid{ n_points = 3, gauss_hermite = true },
    health = health,
    mood = lcm.discrete(Mood),
    wealth = wealth,
  },
  actions = { labor = lcm.discrete(Labor), consumption = consumption },
  functions = {
    working_now = function(labor) return labor:eq("work") end,
    earnings = function(working_now, income, luck, health, wage)
      return lcm.where(working_now, wage[health] * math.exp(income + luck), 0.5)
    end,
    utility = function(consumption, working_now, kind, mood, taste, mood_utility)
      return math.log(consumption) + taste[kind] + mood_utility[mood] - lcm.where(working_now, 0.3, 0)
    end,
  },
  constraints = { budget = budget },
  state_transitions = {
    kind = lcm.fixed,
    health = health_next,
    mood = lcm.markov(function(mood_probability) return mood_probability end),
    wealth = function(wealth, consumption, earnings, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + earnings
    end,
  },
  transition = lcm.markov(function(labor, health, age, survival)
    local s = lcm.where(age:ge(75), 0, survival[health])
    return {
      working = lcm.where(labor:eq("work"), s, 0),
      retired = lcm.where(labor:eq("work"), 0, s),
      dead = 1 - s,
    }
  end),
}

local retired = lcm.regime{
  active = alive,
  states = {
    kind = kind,
    income = lcm.rouwenhorst_ar1{ n_points = 5 },
    health = health,
    wealth = retired_wealth_points == 23 and wealth or lcm.linspace{ start = 0.5, stop = 30, n_points = retired_wealth_points },
  },
  actions = { consumption = consumption },
  functions = {
    utility = function(consumption, kind, taste) return math.log(consumption) + taste[kind] end,
  },
  constraints = { budget = budget },
  state_transitions = {
    kind = lcm.fixed,
    health = health_next,
    wealth = function(wealth, consumption, income, pension, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + pension * math.exp(income)
    end,
  },
  transition = lcm.markov(function(health, age, survival)
    local s = lcm.where(age:ge(75), 0, survival[health])
    return { retired = s, dead = 1 - s }
  end),
}

local dead = lcm.regime{
  terminal = true,
  active = function(age) return age >= 60 end,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "expected_v",
  ages = lcm.ages{ start = 60, step = 5, n_periods = 5 },
  regime_ids = Regime,
  regimes = { working = working, retired = retired, dead = dead },
}
