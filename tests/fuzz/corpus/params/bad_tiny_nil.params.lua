-- Broken on purpose: parameters of models/tiny.lua computed from `beta`,
-- which is not defined (a runtime error in the params file).
return {
  discount_factor = beta ^ 5,
  risk_aversion = 2.0,
  interest_rate = 0.04,
}
