return {
  discount_factor = 0.95,
  risk_aversion = 2.0,
  interest_rate = 0.04,
}
