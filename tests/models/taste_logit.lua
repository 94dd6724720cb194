-- taste_logit.lua - a one-period choice between two discrete actions with
-- EV1 taste shocks, for closed forms: the value of each choice is
-- u_work (or u_rest) plus the best of a continuous effort, -(effort - 1/2)^2
-- at best 0 on its grid; so V = s log(exp(u_work / s) + exp(u_rest / s))
-- and P(work) = 1 / (1 + exp((u_rest - u_work) / s)), s the scale.  The
-- state `group` shifts u_work by `group_bonus` (a second CCP to check).
-- Option scale_by_group (default false): the scale is
-- taste_shock_scale * (1 + group), a scale that depends on a state.
local lcm = require("lcm")

local scale_by_group = lcm.option("scale_by_group", false)
local function scale(taste_shock_scale) return taste_shock_scale end
local function group_scale(taste_shock_scale, group) return taste_shock_scale * (1 + group) end

local Choice = lcm.categorical{ "work", "rest", name = "Choice" }
local Group = lcm.categorical{ "a", "b", name = "Group" }

local choose = lcm.regime{
  terminal = true,
  states = { group = lcm.discrete(Group) },
  actions = { choice = lcm.discrete(Choice), effort = lcm.linspace{ start = 0, stop = 1, n_points = 5 } },
  functions = {
    utility = function(choice, effort, group, u_work, u_rest, group_bonus)
      local u = lcm.where(choice:eq("work"), u_work + group_bonus * group, u_rest)
      return u - (effort - 0.5) * (effort - 0.5)
    end,
  },
  taste_shocks = lcm.ev1{ scale = scale_by_group and group_scale or scale },
}

return lcm.model{
  name = "taste_logit",
  ages = lcm.ages{ start = 20, step = 1, n_periods = 1 },
  regimes = { choose = choose },
}
