-- Broken on purpose: risk_aversion is given for the whole model and again
-- for regime `alive` (ambiguous).
return {
  discount_factor = 0.95,
  risk_aversion = 2.0,
  interest_rate = 0.04,
  alive = { risk_aversion = 3.0 },
}
