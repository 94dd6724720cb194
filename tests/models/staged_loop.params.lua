-- Parameters of tests/models/staged_loop.lua: risk aversion 2, where the
-- staged loop computes c^-1 / -1 without pow or a division by -1.
return { wage = 1.5, risk_aversion = 2, disutility = 0.3, interest_rate = 1.0, discount_factor = 0.95 }
