-- Parameters of tests/models/staged.lua common to its variants; the tests
-- add strain (two), taste_scale (taste), care_price (linked) and alpha (ez).
return {
  discount_factor = 0.95,
  interest_rate = 0.03,
  income = 1.0,
  care_cost = 0.6,
  sick_penalty = 0.5,
  recovery = -0.5,
  persistence = 1.5,
  effect = 2.0,
}
