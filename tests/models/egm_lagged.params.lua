-- Parameters of tests/models/egm_lagged.lua.
return { discount_factor = 0.95 }
