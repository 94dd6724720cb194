-- Parameters of tests/models/sharded.lua.
return {
  discount_factor = 0.96,
  interest_rate = 0.03,
  taste = { low = -0.2, mid = 0.0, high = 0.3 },
  wage = { a = { bad = 6, good = 9 }, b = { bad = 8, good = 12 } },
  pension = { a = 4, b = 6 },
  survival = { bad = 0.9, good = 0.97 },
  health_transition = { bad = { bad = 0.7, good = 0.3 }, good = { bad = 0.1, good = 0.9 } },
}
