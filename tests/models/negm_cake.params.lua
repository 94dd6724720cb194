-- Parameters of tests/models/negm_cake.lua.
return { discount_factor = 0.95, alpha = 0.8, rho = 2, d_ubar = 0.5, tau = 0.1, r = 0.03, delta = 0.15 }
