-- Parameters of tests/models/action_terms.lua.
return { wage = 1.5, risk_aversion = 2, effort_weight = 0.7, disutility = 0.3, fee = 0.05, interest_rate = 0.5, log_cap = 2.2,
         discount_factor = 0.95 }
