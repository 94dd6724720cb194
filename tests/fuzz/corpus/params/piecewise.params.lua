-- For tests/models/piecewise.lua.
return {
  discount_factor = 0.9,
  interest_rate = 0.05,
  alive = { consumption = { points = { 0.1, 0.3, 0.6, 1, 1.5, 2.5, 4, 7, 12 } } },
}
