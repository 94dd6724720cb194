-- The 'five_periods' case with EV1 taste shocks on the retirement choice:
-- lcm solve models/iskhakov_2017.lua -D taste_shocks=true --params this-file
return {
  discount_factor = 0.98,
  disutility_of_work = 1.0,
  interest_rate = 0.0,
  wage = 20.0,
  taste_shock_scale = 0.05,
}
