-- durables.initial.lua - subjects for models/durables.lua drawn as the
-- authors' simulation draws them (DurableConsumptionModel.py, simulate:
-- p0 ~ LN(0, 0.2), d0 = 0.8 LN(0, 0.2), a0 = 0.2 LN(0, 0.1), before the
-- period-0 shocks; the stock n of period 0 is d0 depreciated, (1 - delta) d0
-- with the default delta = 0.15), for Euler errors along a panel of many subjects:
--   lcm run models/durables.lua --initial bench/durables.initial.lua --subjects 10000 --euler
-- (models/durables.initial.csv holds 50 such subjects, for the examples).
local function normal()
  -- Box-Muller on the sandbox's math.random (seeded: the same subjects on every run)
  local u1, u2 = 1 - math.random(), math.random()
  return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
end

return function(n)
  local c = { regime = {}, age = {}, a_lag = {}, p_lag = {}, n = {} }
  for i = 1, n do
    c.regime[i], c.age[i] = "alive", 0
    c.p_lag[i] = math.exp(0.2 * normal())
    c.n[i] = math.min((1 - 0.15) * 0.8 * math.exp(0.2 * normal()), 3)
    c.a_lag[i] = 0.2 * math.exp(0.1 * normal())
  end
  return c
end
