-- Broken on purpose: a Lua syntax error (a missing comma after 0.95).
return {
  discount_factor = 0.95
  risk_aversion = 2.0,
  interest_rate = 0.04,
}
