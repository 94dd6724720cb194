-- Parameters of tests/models/epstein_zin.lua (variant ez; the eu variant
-- takes the same but alpha): income risk and mortality, risk aversion 20.
return {
  income_level = { low = 0.5, high = 1.5 },
  income_transition = { low = { low = 0.8, high = 0.2 }, high = { low = 0.3, high = 0.7 } },
  survival = { 0.9, 0.8, 0.0, 0.0 },   -- by period; 0 where alive ends
  discount_factor = 0.95,
  rho = 2,                             -- inverse EIS
  alpha = 20,                          -- risk aversion
  bequest_floor = 1,
  bequest_weight = 1,
}
