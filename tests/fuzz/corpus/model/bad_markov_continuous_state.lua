-- Broken on purpose: a Markov transition for the continuous state `wealth`.
local lcm = require("lcm")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local alive = lcm.regime{
  active = function(age) return age < 2 end,
  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 5 } },
  functions = { utility = function(wealth) return wealth end },
  state_transitions = {
    wealth = lcm.markov(function(wealth) return { 0.5, 0.5 } end),
  },
  transition = function(age) return lcm.where(age:ge(1), Regime.dead, Regime.alive) end,
}

local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 2 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
