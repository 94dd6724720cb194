-- Wrong shapes and labels: a short list, an unknown label, a list where a
-- number goes, a number where a list goes, a typo in a name.
return {
  beta = { patient = 0.97, impatent = 0.90 },
  wage = { 8.0 },
  disutility_of_work = 0.6,
  survival = { { 0.99, 0.94, 0.5 }, { bad = 0.9 } },
  health_transition = { bad = { bad = 0.7, good = 0.3 }, good = { good = 0.9 }, ugly = { 1, 0 } },
  interest_rate = { 0.03 },
  pensoin = 10.0,
  benefit = 4.0,
}
