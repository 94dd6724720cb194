-- action_terms.lua - a model whose CPU kernels read action terms from the
-- launch's table (gen/emit.c, "action terms"; docs/internals.md): a term
-- that only one action's value decides is computed once per launch.
--   * effort appears in no function but its own term, so the CPU body does
--     not read its value at all (the GPU's computes the term as before);
--   * that term reads a parameter (effort_weight) and intermediates that
--     nothing else reads, and divides;
--   * log(1 + saving) is a term and saving is also read elsewhere (the
--     consumption, the constraint, the next wealth);
--   * with -D indexed=true the effort term reads weight_by_effort[effort],
--     a parameter at the action's own code: in range at every effort, so
--     still a term (pidx_in_range);
--   * saving has 150 points and the next wealth depends on it alone, so
--     the solve reads a continuation table and, with the term's log out of
--     the loop, the innermost loop is staged (from 128 actions; at risk
--     aversion 2 the power is a product), the last period's too.
-- tests/integration/test_differential_models.c checks it against the
-- interpreter and against the plain loop (LCM_NO_TABLES).
local lcm = require("lcm")

local T = 4
local indexed = lcm.option("indexed", false)
local R = lcm.categorical{ "working", "last", name = "Regime" }
local wealth = lcm.linspace{ start = 0.5, stop = 10, n_points = 12 }

local actions = {
  work = lcm.discrete(lcm.categorical{ "no", "yes", name = "Work" }),
  effort = lcm.discrete(lcm.categorical{ "low", "some", "high", name = "Effort" }),
  saving = lcm.linspace{ start = 0, stop = 10, n_points = 150 },
}
local functions = {
  consumption = function(wealth, work, saving, wage) return wealth + work * wage - saving end,
  utility = function(consumption, effort, work, saving, risk_aversion, effort_weight, disutility, fee)
    local rest = 1 - effort * 0.25
    return consumption ^ (1 - risk_aversion) / (1 - risk_aversion)
      + effort_weight * math.sqrt(rest) / (3 - effort) - disutility * work - fee * math.log(1 + saving)
  end,
}
if indexed then -- the weight by effort: a parameter at the action's own code
  functions.effort_weight = function(effort, weight_by_effort) return weight_by_effort[effort] end
end
local constraints = {
  within_wealth = function(saving, wealth) return saving:le(wealth) end,
  positive_consumption = function(consumption) return consumption:gt(0) end,
  -- a condition of saving alone, with a call in it: not a tabled term itself
  -- (a predicate in the staged loop), though it reads one action's value
  capped_fee = function(saving, log_cap) return math.log(1 + saving):le(log_cap) end,
}

local working = lcm.regime{
  active = function(age) return age < T - 1 end,
  states = { wealth = wealth },
  actions = actions,
  functions = functions,
  constraints = constraints,
  state_transitions = { wealth = function(saving, interest_rate) return (1 + interest_rate) * saving end },
  transition = function(age) return lcm.where(age:ge(T - 2), R.last, R.working) end,
}

local last = lcm.regime{
  terminal = true,
  active = function(age) return age == T - 1 end,
  states = { wealth = wealth },
  actions = actions,
  functions = functions,
  constraints = constraints,
}

return lcm.model{
  name = "action_terms",
  ages = lcm.ages{ start = 0, n_periods = T },
  regime_ids = R,
  regimes = { working = working, last = last },
}
