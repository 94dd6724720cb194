-- Parameters of tests/models/many_shocks.lua.
local shock = { mu = 0.0, sigma = 0.05 }
return {
  discount_factor = 0.95,
  alive = { s1 = shock, s2 = shock, s3 = shock, s4 = shock, s5 = shock, s6 = shock, s7 = shock, s8 = shock, s9 = shock },
}
