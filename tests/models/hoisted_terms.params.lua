-- Parameters of tests/models/hoisted_terms.lua: risk aversion 3, where
-- lcm_pow computes the CRRA power in full (a call: a costly term).
return {
  wage = 1.5, risk_aversion = 3, disutility = 0.3, interest_rate = 0.5, discount_factor = 0.95,
  effort_costs = { low = 0, mid = 0.1, high = 0.25 },
}
