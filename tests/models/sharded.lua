-- sharded.lua - work, retire and die with a permanent type (3 values) and
-- group (2 values), Markov health and continuous wealth: the test model of
-- the two knobs (docs/tuning.md).  Every option gives the same V; the
-- sharding tests compare them.
--
-- Options:
--   axes   0 | 1 | 2   sharded states: none, type, type and group
--   splay  none | wealth | health | kind   the state with batch_size
--                                          (kind: the type, when unsharded)
--   wealth_points 40, consumption_points 60  (bench/: larger grids)
local lcm = require("lcm")

local axes = lcm.option("axes", 1)
local splay = lcm.option("splay", "none")
local wealth_points = lcm.option("wealth_points", 40)
local consumption_points = lcm.option("consumption_points", 60)

local Regime = lcm.categorical{ "working", "retired", "dead", name = "Regime" }
local Type = lcm.categorical{ "low", "mid", "high", name = "Type" }
local Group = lcm.categorical{ "a", "b", name = "Group" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }
local Labor = lcm.categorical{ "work", "retire", name = "Labor" }

local kind = lcm.discrete(Type, { distributed = axes >= 1, batch_size = splay == "kind" and 2 or 0 })
local group = lcm.discrete(Group, { distributed = axes >= 2 })
local health = lcm.discrete(Health, { batch_size = splay == "health" and 1 or 0 })
local wealth = lcm.linspace{ start = 0.5, stop = 50, n_points = wealth_points, batch_size = splay == "wealth" and 7 or 0 }
local consumption = lcm.linspace{ start = 0.5, stop = 30, n_points = consumption_points }

local function alive(age) return age < 80 end
local budget = function(consumption, wealth) return consumption:le(wealth) end
local health_next = lcm.markov(function(health, health_transition) return health_transition[health] end)

local working = lcm.regime{
  active = alive,
  states = { kind = kind, group = group, health = health, wealth = wealth },
  actions = { labor = lcm.discrete(Labor), consumption = consumption },
  functions = {
    working_now = function(labor) return labor:eq("work") end,
    income = function(working_now, group, health, wage) return lcm.where(working_now, wage[group][health], 0) end,
    utility = function(consumption, working_now, kind, taste)
      return math.log(consumption) + taste[kind] - lcm.where(working_now, 0.4, 0)
    end,
  },
  constraints = { budget = budget },
  state_transitions = {
    kind = lcm.fixed,
    group = lcm.fixed,
    health = health_next,
    wealth = function(wealth, consumption, income, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + income
    end,
  },
  transition = lcm.markov(function(labor, health, age, survival)
    local s = lcm.where(age:ge(75), 0, survival[health]) -- nobody lives past 75
    return {
      working = lcm.where(labor:eq("work"), s, 0),
      retired = lcm.where(labor:eq("work"), 0, s),
      dead = 1 - s,
    }
  end),
}

local retired = lcm.regime{
  active = alive,
  states = { kind = kind, group = group, health = health, wealth = wealth },
  actions = { consumption = consumption },
  functions = {
    utility = function(consumption, kind, taste) return math.log(consumption) + taste[kind] end,
  },
  constraints = { budget = budget },
  state_transitions = {
    kind = lcm.fixed,
    group = lcm.fixed,
    health = health_next,
    wealth = function(wealth, consumption, group, pension, interest_rate)
      return (1 + interest_rate) * (wealth - consumption) + pension[group]
    end,
  },
  transition = lcm.markov(function(health, age, survival)
    local s = lcm.where(age:ge(75), 0, survival[health]) -- nobody lives past 75
    return { retired = s, dead = 1 - s }
  end),
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  name = "sharded",
  ages = lcm.ages{ start = 50, stop = 80, step = 5 },
  regime_ids = Regime,
  regimes = { working = working, retired = retired, dead = dead },
}
