-- staged_loop.lua - a model whose CPU kernels take the staged action loop
-- (gen/emit_loops.c, "staged"; docs/internals.md): the innermost action, saving,
-- has 160 points (the loop is staged from 128), it comes after a discrete
-- action (the chunk's actions count from work * 160), a constraint caps it
-- from above (saving <= wealth: the loop's limit) and another is a plain
-- predicate (consumption > 0), and CRRA utility has its exponent and
-- divisor 1 - risk_aversion at run time: at risk aversion 2 the staged loop
-- runs (lcm_pow_kind, lcm_div_by), at 3 (staged_loop_general.params.lua)
-- the plain one beside it.  The next wealth depends on saving only, so the
-- solve reads a continuation table; the last period has actions too.
-- tests/integration/test_differential_models.c checks it against the
-- interpreter and the staged loop against the plain one (LCM_NO_TABLES).
local lcm = require("lcm")

local T = 4
local R = lcm.categorical{ "working", "last", name = "Regime" }
local wealth = lcm.linspace{ start = 0.5, stop = 10, n_points = 12 }

local actions = {
  work = lcm.discrete(lcm.categorical{ "no", "yes", name = "Work" }),
  saving = lcm.linspace{ start = 0, stop = 10, n_points = 160 },
}
local functions = {
  consumption = function(wealth, work, saving, wage) return wealth + work * wage - saving end,
  utility = function(consumption, work, risk_aversion, disutility)
    return consumption ^ (1 - risk_aversion) / (1 - risk_aversion) - disutility * work
  end,
}
local constraints = {
  within_wealth = function(saving, wealth) return saving:le(wealth) end,
  positive_consumption = function(consumption) return consumption:gt(0) end,
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
  name = "staged_loop",
  ages = lcm.ages{ start = 0, n_periods = T },
  regime_ids = R,
  regimes = { working = working, last = last },
}
