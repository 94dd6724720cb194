-- Parameters of models/precautionary_savings_health.lua (Rouwenhorst income).
return {
  discount_factor = 0.95,
  interest_rate = 0.04,
  health_income = { bad = 0.7, good = 1.0 },
  health_utility = { bad = -0.2, good = 0.0 },
  health_transition = {
    bad = { bad = 0.6, good = 0.4 },
    good = { bad = 0.1, good = 0.9 },
  },
  alive = {
    income = { mu = 0.0, sigma = 0.1, rho = 0.9 },
  },
}
