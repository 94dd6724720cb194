-- For test models whose only parameter is the discount factor.
return { discount_factor = 0.95 }
