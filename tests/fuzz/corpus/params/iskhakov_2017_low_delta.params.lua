-- The 'low_delta' case of tests/reference/iskhakov_2017 (n_periods = 4):
-- lcm solve models/iskhakov_2017.lua -D n_periods=4 --params this-file
return {
  discount_factor = 0.98,
  disutility_of_work = 0.1,
  interest_rate = 0.0,
  wage = 20.0,
}
