-- Parameters of tests/models/staged_loop.lua: risk aversion 3, an exponent
-- the staged loop has no exact form for, so the plain loop runs.
return { wage = 1.5, risk_aversion = 3, disutility = 0.3, interest_rate = 1.0, discount_factor = 0.95 }
