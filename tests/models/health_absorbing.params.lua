-- Parameters of models/precautionary_savings_health.lua with absorbing
-- health: half of the Markov weights are zero, so the continuation's
-- zero-weight skips (a `continue` on the GPU and in the plain loop, a
-- select in the staged one) are exercised.
return {
  discount_factor = 0.95,
  interest_rate = 0.04,
  health_income = { bad = 0.7, good = 1.0 },
  health_utility = { bad = -0.2, good = 0.0 },
  health_transition = {
    bad = { bad = 1.0, good = 0.0 },
    good = { bad = 0.0, good = 1.0 },
  },
  alive = {
    income = { mu = 0.0, sigma = 0.1, rho = 0.9 },
  },
}
