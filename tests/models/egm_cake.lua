-- egm_cake.lua - eat a cake of size wealth over n_periods periods, the rest
-- of it in the last (a terminal regime: the utility of what is left), with
-- CRRA utility u(c) = c^(1 - s) / (1 - s) (log c at s = 1) and gross return
-- 1 + interest_rate, solved by the endogenous grid method.  Closed form
-- (tests/integration/test_egm.c): eating the share 1 / B_t each period,
--   B_t = 1 + (beta R^(1-s))^(1/s) B_{t+1},  B_{T-1} = 1,
--   V_t(w) = B_t^s u(w) (s != 1),  V_t(w) = B_t log w + A_t (s = 1).
--
-- Options: n_periods (5), risk_aversion s (1), wealth_points (200) on
-- [1, 100] (lin, or log with -D wealth_grid=log), savings_points
-- (2 * wealth_points) on [0, 100], solver (egm, or grid: grid search over
-- consumption_points (2000)).  types (0): with n > 0, a type 'kind' of n
-- values that never changes and scales the utility by 1 + kind / 10 in
-- every period (V scales with it, the policy does not); shard (false)
-- distributes it, wealth_batch and kind_batch (0) splay wealth and kind
-- (tests/integration/test_sharding.c; subjects with types:
-- egm_cake_types.initial.csv).  weights (none): by_age or where, the
-- utility of eating counted twice from age 2 (tests/integration/test_egm.c).
local lcm = require("lcm")

local T = lcm.option("n_periods", 5)
local n = lcm.option("wealth_points", 200)
local kind = lcm.option("wealth_grid", "lin")
local s = lcm.option("risk_aversion", 1)
local function u(x) if s == 1 then return math.log(x) end return x ^ (1 - s) / (1 - s) end
local types = lcm.option("types", 0)
local Kind = { name = "Kind" }
for i = 1, types do Kind[i] = "type" .. (i - 1) end
local type_grid = types > 0 and lcm.discrete(lcm.categorical(Kind),
  { distributed = lcm.option("shard", false), batch_size = lcm.option("kind_batch", 0) }) or nil
-- the utility of consumption, and of the wealth left at the end, scaled by the type where there are types
local eat_utility = type_grid and function(consumption, kind) return u(consumption) * (1 + kind / 10) end
  or function(consumption) return u(consumption) end
local last_utility = type_grid and function(wealth, kind) return u(wealth) * (1 + kind / 10) end
  or function(wealth) return u(wealth) end
-- weights: the utility of eating counts twice from age 2 on, a function
-- that changes with age written with lcm.by_age or as one lcm.where on age
-- (EGM inverts each age's marginal utility; the same V either way)
local weights = lcm.option("weights", "none")
if weights == "by_age" then
  local plain = eat_utility
  eat_utility = lcm.by_age(function(age)
    if age < 2 then return plain end
    return type_grid and function(consumption, kind) return 2 * u(consumption) * (1 + kind / 10) end
      or function(consumption) return 2 * u(consumption) end
  end)
elseif weights == "where" then
  assert(not type_grid, "weights = where: without types")
  eat_utility = function(consumption, age) return lcm.where(age:lt(2), u(consumption), 2 * u(consumption)) end
else
  assert(weights == "none", "weights must be none, by_age or where")
end
local solver = lcm.option("solver", "egm")
local R = lcm.categorical{ "eating", "last_bite" }
local spec = { start = 1, stop = 100, n_points = n, batch_size = lcm.option("wealth_batch", 0) }
local wealth = kind == "log" and lcm.logspace(spec) or lcm.linspace(spec)

local eating = lcm.regime{
  active = function(age) return age < T - 1 end,
  states = { wealth = wealth, kind = type_grid },
  actions = { consumption = lcm.linspace{ start = 0.01, stop = 100, n_points = lcm.option("consumption_points", 2000) } },
  functions = { utility = eat_utility },
  constraints = { budget = function(consumption, wealth) return consumption:le(wealth) end },
  state_transitions = {
    wealth = function(wealth, consumption, interest_rate) return (1 + interest_rate) * (wealth - consumption) end,
    kind = type_grid and lcm.fixed or nil,
  },
  transition = function(age) return lcm.where(age:ge(T - 2), R.last_bite, R.eating) end,
  solver = solver == "egm" and lcm.egm{
    savings = lcm.linspace{ start = 0, stop = 100, n_points = lcm.option("savings_points", 2 * n) } } or nil,
}

local last_bite = lcm.regime{
  terminal = true,
  active = function(age) return age == T - 1 end,
  states = { wealth = wealth, kind = type_grid },
  functions = { utility = last_utility },
}

return lcm.model{
  name = "egm_cake",
  ages = lcm.ages{ start = 0, n_periods = T },
  regime_ids = R,
  regimes = { eating = eating, last_bite = last_bite },
}
