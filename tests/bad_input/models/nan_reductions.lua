-- Broken on purpose (found by the solve): a NaN (log of a negative number,
-- at every wealth) goes into a reduction, which must give NaN so that the
-- checks report it (exit code 7), as the same model written with + does.
-- -D case chooses the reduction, -D q the power mean's exponent:
--   value    lcm.power_mean({ 4, NaN }, { 0.5, 0.5 }, q)
--   first    lcm.power_mean({ NaN, 4 }, { 0.5, 0.5 }, q)
--   weight   lcm.power_mean({ 4, 9 }, { 0.5, NaN }, q)
--   exponent lcm.power_mean({ 4, 9 }, { 0.5, 0.5 }, NaN)
--   H        the Epstein-Zin aggregator power_mean({ utility, E_next_V }, ...)
--            with a NaN utility
--   min, max lcm.min(4, NaN), lcm.max(NaN, 4)
--   where    lcm.where(wealth:gt(0), NaN, 4): the branch taken is NaN
--   taste    EV1 taste shocks over a discrete action (the log-sum-exp of the
--            choices' best Q) where one choice's utility is NaN
local lcm = require("lcm")
local case = lcm.option("case", "value")
local q = tonumber(lcm.option("q", "1"))

local function nan(wealth) return lcm.log(1 - wealth) end
local reductions = {
  value = function(wealth) return lcm.power_mean({ 4, nan(wealth) }, { 0.5, 0.5 }, q) end,
  first = function(wealth) return lcm.power_mean({ nan(wealth), 4 }, { 0.5, 0.5 }, q) end,
  weight = function(wealth) return lcm.power_mean({ 4, 9 }, { 0.5, nan(wealth) }, q) end,
  exponent = function(wealth) return lcm.power_mean({ 4, 9 }, { 0.5, 0.5 }, nan(wealth)) end,
  H = nan,
  min = function(wealth) return lcm.min(4, nan(wealth)) end,
  max = function(wealth) return lcm.max(nan(wealth), 4) end,
  where = function(wealth) return lcm.where(wealth:gt(0), nan(wealth), 4) end,
  taste = function(wealth, work) return lcm.where(work:eq(1), nan(wealth), 4) end,
}
assert(reductions[case], "case must be one of value, first, weight, exponent, H, min, max, where, taste")

local Regime = lcm.categorical{ "alive", "dead", name = "Regime" }
local functions = { utility = reductions[case] }
if case == "H" then
  functions.H = function(utility, E_next_V, discount_factor)
    return lcm.power_mean({ utility, E_next_V }, { 1 - discount_factor, discount_factor }, q)
  end
end
local alive = lcm.regime{
  active = function(age) return age < 1 end,
  states = { wealth = lcm.linspace{ start = 2, stop = 3, n_points = 2 } },
  actions = case == "taste" and { work = lcm.discrete(lcm.categorical(2)) } or nil,
  taste_shocks = case == "taste" and lcm.ev1{ scale = function() return 0.5 end } or nil,
  functions = functions,
  transition = function() return Regime.dead end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 1 end } }

return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regime_ids = Regime,
  regimes = { alive = alive, dead = dead },
}
