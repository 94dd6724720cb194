-- Parameters of models/mortality.lua given per regime and per function,
-- one of them at two levels (an error).
return {
  beta = { 0.97, 0.90 },
  working = {
    income = { wage = { bad = 8.0, good = 12.0 } },
    utility = { disutility_of_work = { 0.6, 0.3 } },
    survival = { { 0.99, 0.94 }, { 0.96, 0.91 }, { 0.93, 0.88 }, { 0.9, 0.85 }, { 0.87, 0.82 }, { 0, 0 }, { 0, 0 } },
    next_wealth__retired = { pension = 10 },
  },
  retired = {
    survival = { { 0.99, 0.94 }, { 0.96, 0.91 }, { 0.93, 0.88 }, { 0.9, 0.85 }, { 0.87, 0.82 }, { 0, 0 }, { 0, 0 } },
    income = { benefit = 4 },
  },
  health_transition = { { 0.7, 0.3 }, { 0.1, 0.9 } },
  interest_rate = 0.03,
  dead = { interest_rate = 0.03 },
}
