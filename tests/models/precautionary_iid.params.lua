-- Parameters of models/precautionary_savings.lua -D shock=normal_gh (an IID
-- income shock: no rho).
return {
  discount_factor = 0.95,
  alive = {
    income = { mu = 0.0, sigma = 0.1 },
    next_wealth = { interest_rate = 0.04 },
  },
}
