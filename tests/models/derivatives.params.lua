-- Parameters of tests/models/derivatives.lua.
return { risk_aversion = 2.5, interest_rate = 0.04, discount_factor = 0.95 }
