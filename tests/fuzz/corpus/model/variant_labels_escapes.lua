-- Labels, names and options with characters the manifest must escape.
local lcm = require("lcm")
local note = lcm.option("note", "a \"quoted\" \\ note")
local R = lcm.categorical{ "alive", "dead", name = "Regime" }
local Mood = lcm.categorical{ "low", "mid", "high", name = "Mood \"m\"\n\\" }
local alive = lcm.regime{
  description = "with " .. note,
  active = function(age) return age < 2 end,
  states = { mood = lcm.discrete(Mood), wealth = lcm.linspace{ start = 1, stop = 10, n_points = 4 } },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 5 } },
  functions = { utility = function(consumption, mood) return math.log(consumption) + 0.1 * mood end },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = {
    mood = lcm.fixed,
    wealth = function(wealth, consumption) return wealth - consumption + 1 end,
  },
  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{
  name = "escapes-model.v1",
  ages = lcm.ages{ start = 0, stop = 2 },
  regime_ids = R,
  regimes = { alive = alive, dead = dead },
}
