-- Valid parameters of health.lua; the params_* cases change one of them with --set.
return {
  discount_factor = 0.95,
  bonus = { bad = 0.0, good = 1.0 },
  health_transition = {
    bad = { bad = 0.7, good = 0.3 },
    good = { bad = 0.1, good = 0.9 },
  },
}
