-- Fixed parameters at three levels, scalars and arrays indexed by a
-- discrete state and by period (baked into the manifest).
local lcm = require("lcm")
local R = lcm.categorical{ "alive", "dead" }
local Skill = lcm.categorical{ "low", "high" }
local alive = lcm.regime{
  active = function(age) return age < 30 end,
  states = { skill = lcm.discrete(Skill), wealth = lcm.irregular{ points = { 1, 2.5, 4, 10 } } },
  actions = { consumption = lcm.linspace{ start = 0.5, stop = 10, n_points = 4 } },
  functions = {
    wage = function(skill, period, wages) return wages[period][skill] end,
    utility = function(consumption, weight, skill, bonus) return weight * math.log(consumption) + bonus[skill] end,
  },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = {
    skill = lcm.markov(function(skill, skill_transition) return skill_transition[skill] end),
    wealth = function(wealth, consumption, wage, rate) return (1 + rate) * (wealth - consumption) + wage end,
  },
  transition = function(age) return lcm.where(age:ge(21.5), R.dead, R.alive) end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{
  ages = lcm.ages{ values = { 20, 21.5, 30 } },
  regime_ids = R,
  regimes = { alive = alive, dead = dead },
  fixed_params = {
    rate = 0.03,
    weight = 1,
    alive = { bonus = { low = 0, high = 0.5 }, wage = { wages = { { 1, 2 }, { 1.5, 2.5 }, { 0, 0 } } } },
    skill_transition = { { 0.8, 0.2 }, { 0.1, 0.9 } },
  },
}
