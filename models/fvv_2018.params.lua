-- The parameters of Fernández-Villaverde & Zarruk Valencia (2018), for
-- models/fvv_2018.lua (with -D fixed=true the model bakes them in and
-- takes no parameters).
return {
  risk_aversion = 2.0,
  discount_factor = 0.97,
  interest_rate = 0.07,
  wage = 5.0,
}
