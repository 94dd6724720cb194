-- Parameters of tests/models/hoisted_terms.lua -D health=true: those of
-- hoisted_terms.params.lua and the slope of good health in saving.
return {
  wage = 1.5, risk_aversion = 3, disutility = 0.3, interest_rate = 0.5, discount_factor = 0.95,
  effort_costs = { low = 0, mid = 0.1, high = 0.25 },
  health_slope = 0.05,
}
