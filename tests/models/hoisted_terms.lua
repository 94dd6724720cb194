-- hoisted_terms.lua - a model whose CPU kernels hoist terms out of an action
-- loop (gen/emit.c, "hoisted terms"; docs/internals.md): of the actions
-- work, effort and saving (looped in that order), CRRA utility of
-- consumption reads the state, work and saving but not effort, so the CPU
-- computes it once per work and saving, before the effort loop, not once
-- per effort; calm = sqrt(1 + wealth - saving) reads no action but saving,
-- so it is hoisted to the state, and the utility's hoisted sum reads it
-- from there.  Effort reads an indexed parameter (not hoisted).
-- A constraint caps saving (saving <= wealth), and the loops that build
-- the hoisted terms stop there too.  The next wealth depends on saving
-- only: the solve reads a continuation table in a staged loop (40 savings
-- of plain arithmetic once the terms are hoisted); simulation on the CPU
-- keeps the state's row of it, each entry computed where first read (work
-- loops outside saving: gen/emit.c, "the state's row"), in the plain loop;
-- LCM_NO_TABLES=1 computes it inline there; the last period's regime has
-- the same actions.  With -D health=true a Markov health state
-- moves by probabilities that read saving: the staged loop computes them
-- for their check though the table holds the continuation (a model like
-- it failed to compile).  -D extra=true adds a tabled term read where a
-- hoisted one is built and a constraint that reads a hoisted term (see
-- below).  -D middle=true hoists terms of the middle loop, effort, out of
-- the work loop outside it, as Mahler & Yum's health logit: a Markov state
-- fit whose probability reads the state and effort (an exp, and a
-- parameter indexed by effort), and effort's strain (a division), both
-- computed once per state and effort instead of once per work, effort
-- capped by wealth (the loop that builds them stops there too).
-- Checked against the interpreter:
-- V (tests/integration/test_differential_models.c) and the panel
-- (test_simulate.c), bit for bit; unit_cost counts the kernel by hand.
local lcm = require("lcm")

local T = 4
local with_health = lcm.option("health", false)
local R = lcm.categorical{ "working", "last", name = "Regime" }
local Health = lcm.categorical{ "bad", "good", name = "Health" }
local wealth = lcm.linspace{ start = 0.5, stop = 10, n_points = 9 }
local middle = lcm.option("middle", false)
local Fit = lcm.categorical{ "unfit", "fit", name = "Fit" }
local states = { wealth = wealth, health = with_health and lcm.discrete(Health) or nil,
  fit = middle and lcm.discrete(Fit) or nil }
local transitions = { wealth = function(saving, interest_rate) return (1 + interest_rate) * saving end }
if with_health then -- good health is likelier the more is saved
  transitions.health = lcm.markov(function(saving, health_slope)
    local good = 0.3 + health_slope * saving
    return { bad = 1 - good, good = good }
  end)
end

if middle then -- fitter the more effort, the richer and the fitter
  transitions.fit = lcm.markov(function(effort, wealth, fit, effort_gain)
    local y = effort_gain[effort] * wealth - 1 + fit
    local p = math.exp(y) / (1 + math.exp(y))
    return { unfit = 1 - p, fit = p }
  end)
end

local actions = { -- looped in this order, saving innermost
  { "work", lcm.discrete(lcm.categorical{ "no", "yes", name = "Work" }) },
  { "effort", lcm.discrete(lcm.categorical{ "low", "mid", "high", name = "Effort" }) },
  { "saving", lcm.linspace{ start = 0, stop = 10, n_points = 40 } },
}
local functions = {
  rest = function(wealth, saving) return wealth - saving end,
  calm = function(rest) return lcm.sqrt(1 + rest) end,
  consumption = function(rest, work, wage) return rest + work * wage end,
  utility = function(consumption, calm, effort, work, risk_aversion, effort_costs, disutility)
    return consumption ^ (1 - risk_aversion) / (1 - risk_aversion) + calm - effort_costs[effort] * calm
      - disutility * work
  end,
}
local constraints = {
  within_wealth = function(saving, wealth) return saving:le(wealth) end,
  positive_consumption = function(consumption) return consumption:gt(0) end,
}
if lcm.option("extra", false) then
  -- calm also reads boost, a term of saving alone (an action term, read
  -- from lcm_at where calm is built), and the utility reads boost itself;
  -- the one constraint reads calm, a hoisted term, so calm is built at
  -- every saving, not up to a cap; saving is read in the loop only by
  -- hoisted terms and the next wealth
  functions.boost = function(saving) return lcm.log(2 + saving) end
  functions.calm = function(rest, boost) return lcm.sqrt(1 + rest) * boost end
  functions.utility = function(consumption, calm, boost, effort, work, risk_aversion, effort_costs, disutility)
    return consumption ^ (1 - risk_aversion) / (1 - risk_aversion) + calm - effort_costs[effort] * calm
      - disutility * work + 0.01 * boost
  end
  constraints = { calm_enough = function(calm) return calm:gt(0.5) end }
end

if middle then
  functions.strain = function(effort, wealth, effort_costs) return effort_costs[effort] * lcm.sqrt(wealth) / (1 + wealth) end
  functions.utility = function(consumption, calm, strain, work, risk_aversion, disutility)
    return consumption ^ (1 - risk_aversion) / (1 - risk_aversion) + calm - strain * calm - disutility * work
  end
  constraints.effort_within = function(effort, wealth) return effort:le(wealth) end
end

local working = lcm.regime{
  active = function(age) return age < T - 1 end,
  states = states,
  actions = actions,
  functions = functions,
  constraints = constraints,
  state_transitions = transitions,
  transition = function(age) return lcm.where(age:ge(T - 2), R.last, R.working) end,
}

local last = lcm.regime{
  terminal = true,
  active = function(age) return age == T - 1 end,
  states = states,
  actions = actions,
  functions = functions,
  constraints = constraints,
}

return lcm.model{
  name = "hoisted_terms",
  ages = lcm.ages{ start = 0, n_periods = T },
  regime_ids = R,
  regimes = { working = working, last = last },
}
