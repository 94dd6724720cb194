-- Parameters of models/durables.lua: Druedahl (2021), from
-- github.com/NumEconCopenhagen/ConsumptionSavingNotebooks (commit 202278a5),
-- "02. DurableConsumptionModel/DurableConsumptionModel.py", setup():
-- beta = 0.965, rho = 2, alpha = 0.9, d_ubar = 1e-2, R = 1.03, tau = 0.10,
-- delta = 0.15, sigma_psi = sigma_xi = 0.1 (pi = 0: no unemployment).
-- The shocks are mean-one log-normal (consav.quadrature.log_normal_gauss_hermite):
-- log psi ~ N(-sigma_psi^2 / 2, sigma_psi^2), log xi ~ N(-sigma_xi^2 / 2, sigma_xi^2).
local sigma_psi, sigma_xi = 0.1, 0.1
local shocks = {
  psi = { mu = -0.5 * sigma_psi ^ 2, sigma = sigma_psi },
  xi = { mu = -0.5 * sigma_xi ^ 2, sigma = sigma_xi },
}
return {
  discount_factor = 0.965,
  rho = 2.0,
  alpha = 0.9,
  d_ubar = 1e-2,
  R = 1.03,
  tau = 0.10,
  delta = 0.15,
  alive = shocks,
  last = shocks,
}
