-- Parameters of tests/models/action_terms.lua -D indexed=true.
return { wage = 1.5, risk_aversion = 2, weight_by_effort = { low = 0.4, some = 0.7, high = 1.1 }, disutility = 0.3,
         fee = 0.05, interest_rate = 0.5, log_cap = 2.2, discount_factor = 0.95 }
