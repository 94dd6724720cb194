-- Parameters of tests/models/epstein_zin.lua -D income=ar1: as
-- epstein_zin.params.lua without the Markov income; rho is H's alone (the
-- income process has a fixed rho of its own).
return {
  survival = { 0.9, 0.8, 0.0, 0.0 },   -- by period; 0 where alive ends
  discount_factor = 0.95,
  alive = { H = { rho = 2 } },         -- inverse EIS
  alpha = 20,                          -- risk aversion
  bequest_floor = 1,
  bequest_weight = 1,
}
