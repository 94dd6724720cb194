-- Misuses of lcm.by_age, one per -D case=... (tests/bad_input/catalogue.txt).
local lcm = require("lcm")
local case = lcm.option("case", "none")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }
local Kind = lcm.categorical{ "a", "b" }

local function by_age_grid(make)
  return lcm.by_age(function(age)
    if age < 2 then return lcm.linspace{ start = 1, stop = 10, n_points = 10 } end
    return make()
  end)
end

local wealth = ({
  not_function = function() return lcm.by_age(5) end,
  points_differ = function() return by_age_grid(function() return lcm.linspace{ start = 1, stop = 20, n_points = 12 } end) end,
  batch_differs = function()
    return by_age_grid(function() return lcm.linspace{ start = 1, stop = 20, n_points = 10, batch_size = 3 } end)
  end,
  discrete = function() return by_age_grid(function() return lcm.discrete(Kind) end) end,
  process = function() return by_age_grid(function() return lcm.rouwenhorst_ar1{ n_points = 10 } end) end,
  runtime = function() return by_age_grid(function() return lcm.irregular{ n_points = 10 } end) end,
  nothing = function() return by_age_grid(function() return nil end) end,
  builder_error = function() return by_age_grid(function() error("no grid after age 1") end) end,
  nan_bound = function() return by_age_grid(function() return lcm.linspace{ start = 1, stop = 0 / 0, n_points = 10 } end) end,
})[case]
wealth = wealth and wealth() or lcm.linspace{ start = 1, stop = 10, n_points = 10 }

local consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 20 }
if case == "action" then consumption = lcm.by_age(function() return consumption end) end

local income = function(wage) return wage end
if case == "function_number" then
  income = lcm.by_age(function(age) return 1 end)
elseif case == "function_kinds" then
  income = lcm.by_age(function(age)
    if age < 2 then return function(wage) return wage end end
    return function(wage) return wage:gt(0) end
  end)
end

local function wealth_next(wealth, consumption, income) return wealth - consumption + income end
local next_wealth = case == "state_transition" and lcm.by_age(function() return wealth_next end) or wealth_next
local transition = function(age) return lcm.where(age:ge(2), Regime.dead, Regime.alive) end
if case == "regime_transition" then transition = lcm.by_age(function() return transition end) end
local active = function(age) return age < 3 end
if case == "active" then active = lcm.by_age(function() return active end) end

local alive = lcm.regime{
  active = active,
  states = { wealth = wealth },
  actions = { consumption = consumption },
  functions = {
    utility = function(consumption) return math.log(consumption) end,
    income = income,
  },
  constraints = {
    budget = function(consumption, wealth) return consumption:le(wealth) end,
  },
  state_transitions = { wealth = next_wealth },
  transition = transition,
}

if case == "ev1" then lcm.ev1{ scale = lcm.by_age(function() return function() return 1 end end) } end

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 3, step = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
