-- lcm/inverse.lua - closed-form inverses of traced values: lcm.inverse(y, x, m).
--
-- The x with y(x) = m, where y reaches the continuous state or action x
-- along one path of invertible steps, each with the rest of its operands
-- free of x: a sign, a sum, a difference, a product, a quotient, a power
-- (in its base or its exponent; u * u is u ^ 2), log, exp, sqrt, log1p
-- and expm1.  The inverse peels those steps off y from the outside in, applying each one's
-- inverse to m: marginal utility c^-sigma gives (m)^(1 / -sigma), 1 / c
-- gives 1 / m.  This is what the endogenous grid method needs from the
-- Euler equation; like lcm.diff's result, the inverse is a traced value
-- built with the tracer's constructor.
--
-- The inverse is the function's on the branch the steps imply: a power's
-- inverse is the positive root, sqrt's the square.  A selection
-- lcm.where(cond, a, b) whose condition is free of x (the chain of periods
-- of an lcm.by_age function, a discrete action) inverts as the selection
-- of its branches' inverses, where(cond, a^-1(m), b^-1(m)): the condition
-- picks the same branch for x as for y.  Where y reaches x twice (x + log
-- x, a where whose condition reads x), or through a step without a
-- closed-form inverse (floor, abs, min, max, tanh, normal_cdf), there is
-- no such x: an error naming the step.

local T = require("lcm.trace")

local I = {}

-- Each step's inverse: the operand on x's side from m and the other operand
-- k (the operands as traced values; side 1 or 2: which one is on x's side).
local INVERT = {
  neg = function(m) return -m end,
  add = function(m, k) return m - k end,
  sub = function(m, k, side) if side == 1 then return m + k end return k - m end,
  mul = function(m, k) return m / k end,
  div = function(m, k, side) if side == 1 then return m * k end return k / m end,
  pow = function(m, k, side)
    if side == 1 then return T.op("pow", m, 1 / k) end
    return T.op("log", m) / T.op("log", k)
  end,
  log = function(m) return T.op("exp", m) end,
  exp = function(m) return T.op("log", m) end,
  sqrt = function(m) return m * m end,
  log1p = function(m) return T.op("expm1", m) end,
  expm1 = function(m) return T.op("log1p", m) end,
}

function I.inverse(y, x, m)
  local function fail(msg) T.fail("lcm.inverse: " .. msg, T.user_where()) end
  local xn = T.continuous_variable(x, fail)
  if T.is_param(y) then y = T.sym(T.to_id(y, "lcm.inverse")) end
  if not T.is_sym(y) then fail("the first argument must be a traced value that depends on '" .. xn.name .. "'") end
  if type(m) ~= "number" and not T.is_sym(m) and not T.is_param(m) then
    fail("the third argument (the value y takes) must be a number or a traced value")
  end
  local depends = T.reaches({ [x.id] = true }) -- does node i depend on x?
  if not depends(y.id) then fail("the value does not depend on '" .. xn.name .. "'") end
  T.consume({ y.id, x.id })
  -- peels the steps off node i from the outside in, target the value it takes
  local function invert(i, target)
    while i ~= x.id do
      local n = T.node(i)
      if n.op == "where" and not depends(n.args[1]) then
        -- a selection by a condition free of x (the period of an lcm.by_age
        -- function, a discrete action): x is the inverse of the branch taken
        for b = 2, 3 do
          if not depends(n.args[b]) then
            fail("'" .. xn.name .. "' does not enter one branch of 'where' (lcm.where or lcm.by_age): there is no " ..
              "inverse where that branch is taken")
          end
        end
        return T.op("where", T.sym(n.args[1]), invert(n.args[2], target), invert(n.args[3], target))
      elseif (n.op == "mul" or n.op == "add") and n.args[1] == n.args[2] then
        -- one operand twice: u * u (the tracer writes u ^ 2 as a product,
        -- trace.lua) inverts as a square root, u + u as a halving.
        target = n.op == "mul" and T.op("pow", target, 0.5) or target / 2
        i = n.args[1]
      else
        local side, k = nil, nil
        for s, a in ipairs(n.args) do
          if depends(a) then
            if side then fail("'" .. xn.name .. "' enters both operands of '" .. n.op .. "': there is no closed-form " ..
              "inverse (the endogenous grid method needs one; grid search does not)") end
            side = s
          else
            k = T.sym(a)
          end
        end
        local invert_step = INVERT[n.op]
        if not invert_step then
          fail("'" .. n.op .. "' on the way from the value to '" .. xn.name .. "' has no closed-form inverse " ..
            "(the endogenous grid method needs one; grid search does not)")
        end
        target = invert_step(target, k, side)
        i = n.args[side]
      end
    end
    return target
  end
  return invert(y.id, m)
end

return I
