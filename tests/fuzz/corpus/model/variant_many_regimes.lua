-- Regimes made in a loop, each moving on to the next with a probability.
local lcm = require("lcm")
local n = 9
local names = {}
for i = 1, n do names[i] = "r" .. i end
names[#names + 1] = "dead"
local R = lcm.categorical(names)
local regimes = {}
for i = 1, n do
  regimes["r" .. i] = lcm.regime{
    active = function(age) return age < 3 end,
    states = { wealth = lcm.linspace{ start = 1, stop = 5, n_points = 3 } },
    actions = { consumption = lcm.linspace{ start = 0.5, stop = 5, n_points = 3 } },
    functions = { utility = function(consumption) return math.log(consumption) * i end },
    constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
    state_transitions = { wealth = function(wealth, consumption) return wealth - consumption + i end },
    transition = lcm.markov(function(stay)
      local p = { dead = 1 - stay }
      p[i < n and ("r" .. (i + 1)) or "r1"] = stay
      return p
    end),
  }
end
regimes.dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{ ages = lcm.ages{ start = 0, stop = 3 }, regime_ids = R, regimes = regimes }
