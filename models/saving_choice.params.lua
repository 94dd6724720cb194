-- Parameters of models/saving_choice.lua.
return {
  discount_factor = 0.95,
  alive = {
    income = { mu = 0.0, sigma = 0.2, rho = 0.9 },
    consumption = { interest_rate = 0.03 },
    utility = { risk_aversion = 2.0 },
  },
}
