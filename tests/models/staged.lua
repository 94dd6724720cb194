-- staged.lua - a saving choice beside health care, whose terms leave out
-- wealth: the staged solve (ir/eliminate.h) maximises care first, over
-- health and saving, into a table, and the saving choice then reads it.
-- Next wealth is the saving (on the wealth grid); health next period is a
-- logit of today's health and the care taken; care costs utility.
--
--   variant discrete (default)  care a discrete action (5 levels of 0, 1/4, ..., 1)
--   variant continuous          care a continuous action (linspace 0..1, care_points)
--   variant two                 and an intensity (4 levels) that the care's cost
--                               reads and the health logit reads in its place: care
--                               is maximised over intensity and health first, then
--                               intensity over health and saving (two stages)
-- where the staged solve must not apply (the plan says why):
--   variant taste               EV1 taste shocks over care (a discrete choice)
--   variant linked              a constraint linking care to wealth (care_price
--                               times care at most wealth): its table would cover
--                               every state and action
--   variant ez                  Epstein-Zin preferences (risk aversion alpha)
-- Options: n_periods (4), wealth_points (25), care_points (9, continuous),
-- types (1: a fixed discrete type scaling the care cost; 2 or more with
-- shard=true shards it), wealth_batch (0: splay of wealth), health_batch (0).
local lcm = require("lcm")

local variant = lcm.option("variant", "discrete")
local n_periods = lcm.option("n_periods", 4)
local wealth_points = lcm.option("wealth_points", 25)
local care_points = lcm.option("care_points", 9)
local types = lcm.option("types", 1)
local shard = lcm.option("shard", false)
local wealth_batch = lcm.option("wealth_batch", 0)
local health_batch = lcm.option("health_batch", 0)

local Health = lcm.categorical{ "sick", "well", name = "Health" }
local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }

local function wealth_grid(batch) return lcm.linspace{ start = 0, stop = 10, n_points = wealth_points, batch_size = batch } end
local continuous = variant == "continuous"
local care = continuous and lcm.linspace{ start = 0, stop = 1, n_points = care_points } or lcm.discrete(lcm.categorical(5))
local care_value = continuous and function(care) return care end or function(care) return care / 4 end

local states = {
  { "health", lcm.discrete(Health, { batch_size = health_batch }) },
  { "wealth", wealth_grid(wealth_batch) },
}
if types > 1 then table.insert(states, 1, { "kind", lcm.discrete(lcm.categorical(types), { distributed = shard }) }) end
local actions = { { "saving", wealth_grid(0) }, { "care", care } }
if variant == "two" then actions[#actions + 1] = { "intensity", lcm.discrete(lcm.categorical(4)) } end

local functions = {
  care_value = care_value,
  consumption = function(wealth, saving, income, interest_rate) return (1 + interest_rate) * wealth + income - saving end,
  care_weight = types > 1 and function(kind) return 1 + kind / 2 end or function() return 1 end,
  utility = variant == "two"
    and function(consumption, care_value, health, intensity, care_cost, care_weight, sick_penalty, strain)
      local gap = intensity / 3 - care_value
      return math.log(consumption) - care_weight * care_cost * care_value * care_value - sick_penalty * (1 - health)
        - strain * gap * gap
    end
    or function(consumption, care_value, health, care_cost, care_weight, sick_penalty)
      return math.log(consumption) - care_weight * care_cost * care_value * care_value - sick_penalty * (1 - health)
    end,
}
local logit = variant == "two"
  and function(health, intensity, recovery, persistence, effect)
    local y = recovery + persistence * health + effect * intensity / 3
    return 1 / (1 + math.exp(-y))
  end
  or function(health, care_value, recovery, persistence, effect)
    local y = recovery + persistence * health + effect * care_value
    return 1 / (1 + math.exp(-y))
  end
functions.well_next = logit

local constraints = {
  budget = function(consumption) return consumption:gt(0) end,
}
if variant == "linked" then
  constraints.affordable = function(care_value, wealth, care_price) return (care_price * care_value):le(wealth) end
end

local last_age = n_periods - 1
local alive = lcm.regime{
  active = function(age) return age < last_age end,
  states = states,
  actions = actions,
  functions = functions,
  constraints = constraints,
  state_transitions = {
    wealth = function(saving) return saving end,
    health = lcm.markov(function(well_next) return { sick = 1 - well_next, well = well_next } end),
    kind = types > 1 and lcm.fixed or nil,
  },
  transition = function(age) return lcm.where(age:ge(last_age - 1), Regime.dead, Regime.alive) end,
  taste_shocks = variant == "taste" and lcm.ev1{ scale = function(taste_scale) return taste_scale end } or nil,
  risk_aversion = variant == "ez" and function(alpha) return alpha end or nil,
}

local dead = lcm.regime{
  terminal = true,
  active = function(age) return age > 0 end,
  functions = { utility = function() return 0 end },
}

return lcm.model{
  name = "staged",
  ages = lcm.ages{ start = 0, step = 1, n_periods = n_periods },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
