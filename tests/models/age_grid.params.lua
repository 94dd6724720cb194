return {
  discount_factor = 0.95,
  risk_aversion = 2.0,
  interest_rate = 0.04,
  wage = 1.0,
  pension = 0.6,
  max_share = 0.9,
}
