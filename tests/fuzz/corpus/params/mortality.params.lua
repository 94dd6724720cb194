-- Parameters of models/mortality.lua (7 periods: ages 50, 55, ..., 80).
-- Arrays are lists (first element = first category / period) or tables
-- keyed by category label.
local survival = {}
for period = 0, 6 do
  -- nobody survives from the last working age (75) to 80: the living
  -- regimes are inactive at 80, so their probability must be 0 there
  local s = period < 5 and 0.99 - 0.03 * period or 0.0
  survival[period + 1] = { bad = s - 0.05 * (s > 0 and 1 or 0), good = s }
end

return {
  beta = { patient = 0.97, impatient = 0.90 },
  wage = { bad = 8.0, good = 12.0 },
  disutility_of_work = { bad = 0.6, good = 0.3 },
  survival = survival,
  health_transition = {
    bad = { bad = 0.7, good = 0.3 },
    good = { bad = 0.1, good = 0.9 },
  },
  interest_rate = 0.03,
  pension = 10.0,
  benefit = 4.0,
}
