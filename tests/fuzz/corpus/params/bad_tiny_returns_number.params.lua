-- Broken on purpose: a params file must return a table, this one returns a number.
local discount_factor = 0.95
return discount_factor
