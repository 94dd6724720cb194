-- Parameters of tests/models/egm_cake.lua.
return { discount_factor = 0.95, eating = { next_wealth = { interest_rate = 0.04 } } }
