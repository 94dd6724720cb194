-- models/mortality.params.lua with --set overrides (the harness applies
-- every line starting with "--set ").
--set interest_rate=0.05
--set working.income.wage={bad = 7, good = 11}
--set beta.patient=0.99
--set retired.benefit=(function() local s = 0 for i = 1, 10 do s = s + i end return s end)()
--set survival={{bad = 0.9, good = 0.95}, {0.9, 0.95}, {0.9, 0.95}, {0.9, 0.95}, {0.9, 0.95}, {0, 0}, {0, 0}}
--set pension
--set =3
--set working..wage=1
local survival = {}
for period = 0, 6 do
  local s = period < 5 and 0.99 - 0.03 * period or 0.0
  survival[period + 1] = { bad = s - 0.05 * (s > 0 and 1 or 0), good = s }
end
return {
  beta = { patient = 0.97, impatient = 0.90 },
  wage = { bad = 8.0, good = 12.0 },
  disutility_of_work = { bad = 0.6, good = 0.3 },
  survival = survival,
  health_transition = { bad = { bad = 0.7, good = 0.3 }, good = { 0.1, 0.9 } },
  interest_rate = 0.03,
  pension = 10.0,
  benefit = 4.0,
}
