-- Broken on purpose: parameters of models/tiny.lua without interest_rate.
return {
  discount_factor = 0.95,
  risk_aversion = 2.0,
}
