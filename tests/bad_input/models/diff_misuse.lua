-- lcm.diff and lcm.inverse used wrongly, one way per -D bad=...: lcm.diff
-- with respect to a discrete action, a computed value, of a condition, of
-- E_next_V, or outside a model function; lcm.inverse of a value that
-- reaches consumption twice or through floor.
local lcm = require("lcm")

local bad = lcm.option("bad", "discrete")
if bad == "outside" then lcm.diff(1, 2) end

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 1 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  actions = {
    work = lcm.discrete(lcm.categorical{ "no", "yes", name = "Work" }),
    consumption = lcm.linspace{ start = 0.5, stop = 5, n_points = 5 },
  },
  functions = {
    utility = function(consumption, work, wealth)
      if bad == "discrete" then return lcm.diff(consumption * work, work) end
      if bad == "computed" then return lcm.diff(consumption, consumption * 2) end
      if bad == "condition" then return lcm.diff(consumption:le(wealth), consumption) + work end
      if bad == "inverse_twice" then return lcm.inverse(consumption + math.log(consumption), consumption, wealth) + work end
      if bad == "inverse_floor" then return lcm.inverse(2 * math.floor(consumption), consumption, wealth) + work end
      return math.log(consumption) + work + 0 * wealth
    end,
    H = function(utility, E_next_V, consumption)
      if bad == "enext" then return utility + lcm.diff(E_next_V, consumption) end
      return utility + 0.9 * E_next_V + 0 * consumption
    end,
  },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = { wealth = function(wealth, consumption) return wealth - consumption + 1 end },
  transition = function() return Regime.dead end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
