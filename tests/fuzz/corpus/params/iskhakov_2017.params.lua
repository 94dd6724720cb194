-- The 'five_periods' case of tests/reference/iskhakov_2017 (n_periods = 6,
-- the model's default): lcm solve models/iskhakov_2017.lua --params this-file
return {
  discount_factor = 0.98,
  disutility_of_work = 1.0,
  interest_rate = 0.0,
  wage = 20.0,
}
