-- Parameters of tests/models/expected_v.lua.
return {
  discount_factor = 0.96,
  interest_rate = 0.03,
  taste = { low = -0.2, high = 0.3 },
  mood_utility = { low = -0.1, high = 0.1 },
  mood_probability = { low = 0.3, high = 0.7 },
  wage = { bad = 4, good = 6 },
  pension = 2,
  survival = { bad = 0.9, good = 0.97 },
  health_transition = { bad = { bad = 0.7, good = 0.3 }, good = { bad = 0.1, good = 0.9 } },
  working = {
    income = { mu = 0.0, sigma = 0.2, rho = 0.9 },
    luck = { mu = 0.0, sigma = 0.1 },
  },
  retired = { income = { mu = 0.0, sigma = 0.2, rho = 0.9 } },
}
