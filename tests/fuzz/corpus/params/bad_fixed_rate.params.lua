-- Broken on purpose: interest_rate is fixed in fixed_rate.lua (fixed_params)
-- and cannot be set here.
return {
  discount_factor = 0.95,
  interest_rate = 0.05,
}
