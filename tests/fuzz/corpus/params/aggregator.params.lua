-- For tests/models/aggregator.lua with -D aggregator=nonlinear.
return { discount_factor = 0.9, penalty = 0.01 }
