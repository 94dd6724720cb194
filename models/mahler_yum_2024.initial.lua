-- Initial conditions of models/mahler_yum_2024.lua, drawn as pylcm's
-- create_inputs draws them (the reference results' version): everyone
-- starts alive at 25 without wealth; the type (education, discount type,
-- productivity type, health type) is drawn from the cumulative probabilities
-- of mahler_yum_2024/init_distr_2b2t2h.txt, whose rows nest the types in that
-- order; health is good unless a uniform draw exceeds the type's threshold;
-- the habit (lagged effort) is the type's initial effort rounded up to the
-- effort grid (numpy's searchsorted; -D variant=paper: to the nearest level,
-- pylcm's later fix); the productivity shock is one of its nodes, each with
-- the same probability (pylcm's "stationary" distribution: it propagates the
-- uniform with the transposed matrix, which keeps it uniform); the
-- adjustment cost is drawn by the simulation (the column is left out).
-- lcm.option reads the model's options, so the file follows -D effort_points
-- and shock_points.  Draws come from the sandbox's math.random, seeded 0, so
-- the subjects are the same on every run.  `lcm run` simulates 1,000 of them
-- unless --subjects says otherwise (the reference's panel has 20,000).
local lcm = require("lcm")
local types = lcm.read_table("mahler_yum_2024/init_distr_2b2t2h.txt").rows
local effort_points = lcm.option("effort_points", 40)
local shock_nodes = lcm.option("shock_points", 5)
local nearest = lcm.option("variant", "benchmark") == "paper"
local shock_bound = math.sqrt(shock_nodes - 1) / math.sqrt(1 - 0.975 ^ 2)   -- Rouwenhorst, sigma 1

local educations, discount_types = { "low", "high" }, { "small", "large" }
local productivities, health_types = { "low", "high" }, { "low", "high" }

-- the effort level of x: the first at or above it, or the nearest (the
-- grid is k / (effort_points - 1))
local function effort_code(x)
  local step = 1 / (effort_points - 1)
  for k = 0, effort_points - 1 do
    if k * step >= x then
      return (nearest and k > 0 and x - (k - 1) * step < k * step - x) and k - 1 or k
    end
  end
  return effort_points - 1
end

return function(n)
  local columns = { regime = {}, age = {}, wealth = {}, health = {}, lagged_effort = {}, education = {},
                    discount_type = {}, productivity = {}, health_type = {}, productivity_shock = {} }
  for i = 1, n do
    local u, t = math.random(), 1
    while t < #types and u >= types[t][1] do t = t + 1 end
    local row, k = types[t], t - 1
    columns.regime[i], columns.age[i], columns.wealth[i] = "alive", 25, 0
    columns.education[i] = educations[k // 8 + 1]
    columns.discount_type[i] = discount_types[(k % 8) // 4 + 1]
    columns.productivity[i] = productivities[(k % 4) // 2 + 1]
    columns.health_type[i] = health_types[k % 2 + 1]
    columns.health[i] = math.random() > row[2] and "bad" or "good"
    columns.lagged_effort[i] = effort_code(row[3])
    columns.productivity_shock[i] = -shock_bound + 2 * shock_bound / (shock_nodes - 1) * math.random(0, shock_nodes - 1)
  end
  return columns
end
