-- Parameters of tests/models/hoisted_terms.lua -D middle=true: those of
-- hoisted_terms.params.lua and effort's gain in fitness.
return {
  wage = 1.5, risk_aversion = 3, disutility = 0.3, interest_rate = 0.5, discount_factor = 0.95,
  effort_costs = { low = 0, mid = 0.1, high = 0.25 },
  effort_gain = { low = 0, mid = 0.2, high = 0.4 },
}
