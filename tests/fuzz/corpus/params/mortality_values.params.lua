-- Numbers at the edges: NaN, infinities, huge and tiny, integers past 2^53,
-- negative zero; and values that are not numbers.
return {
  beta = { patient = 0 / 0, impatient = -0.0 },
  wage = { bad = math.huge, good = -math.huge },
  disutility_of_work = { bad = 1e308 * 10, good = 5e-324 },
  survival = { { math.maxinteger, math.mininteger }, { 2 ^ 53 + 1, 0x7fffffffffffffff } },
  health_transition = { bad = { bad = "0.7", good = true }, good = { bad = nil, good = 0.9 } },
  interest_rate = 0x1p-1074,
  pension = print,
  benefit = {},
}
