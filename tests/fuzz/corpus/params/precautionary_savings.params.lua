-- Parameters of models/precautionary_savings.lua with its default options
-- (a Rouwenhorst AR(1) income process).  For -D shock=normal_gh drop rho;
-- for -D wealth_grid=runtime add alive.wealth.points (wealth_points values).
return {
  discount_factor = 0.95,
  alive = {
    income = { mu = 0.0, sigma = 0.1, rho = 0.9 },
    next_wealth = { interest_rate = 0.04 },
  },
}
