-- lcm/diff.lua - symbolic derivatives of traced values: lcm.diff(y, x).
--
-- The derivative of a traced value y with respect to a continuous state or
-- action x, built from the nodes of y's graph by the rules of calculus.  It
-- is built with the tracer's own constructor (T.op), so it is simplified,
-- constant-folded and shared with the rest of the regime's graph like any
-- traced expression, and the kernels, the interpreter and simulation
-- targets compute it like any other node.  Zero derivatives stay the
-- number 0, so a term that does not depend on x leaves no node behind.
--
-- Where a function is not differentiable the derivative is one of its
-- one-sided derivatives: abs at 0 and min and max at a tie take the second
-- branch of lcm.where below; floor, ceil and the integer quotient are flat
-- (0); a comparison or condition has no derivative (an error), but
-- lcm.where(c, a, b) differentiates to lcm.where(c, a', b').  E_next_V has
-- no derivative at generation time (it depends on the action through
-- next period's V): an error.

local T = require("lcm.trace")

local D = {}

local SQRT_2PI = math.sqrt(2 * math.pi)

-- Helpers that keep an exact zero (the number 0) out of the graph.
local function add(a, b)
  if a == 0 then return b end
  if b == 0 then return a end
  return a + b
end
local function sub(a, b)
  if b == 0 then return a end
  if a == 0 then return -b end
  return a - b
end
local function mul(a, b)
  if a == 0 or b == 0 then return 0 end
  return a * b
end
local function neg(a) return a == 0 and 0 or -a end

-- The derivative of node `id` (a traced value) with respect to node `x`.
local function derivative(id, x, fail)
  local memo = {}
  local function d(i)
    local known = memo[i]
    if known ~= nil then return known end
    local n = T.node(i)
    local a, s = n.args, function(k) return T.sym(n.args[k]) end
    local r
    local op = n.op
    if i == x then r = 1
    elseif op == "const" or op == "param" or op == "pidx" or op == "age" or op == "period" or
      op == "state" or op == "action" then r = 0
    elseif op == "enext" then
      fail("E_next_V has no derivative when the model is generated (it depends on next period's V)")
    elseif n.type == "bool" then
      fail("a comparison or condition has no derivative (differentiate the values lcm.where chooses between)")
    elseif op == "neg" then r = neg(d(a[1]))
    elseif op == "add" then r = add(d(a[1]), d(a[2]))
    elseif op == "sub" then r = sub(d(a[1]), d(a[2]))
    elseif op == "mul" then r = add(mul(d(a[1]), s(2)), mul(s(1), d(a[2])))
    elseif op == "div" then -- (u / v)' = u' / v - u v' / v^2
      local du, dv = d(a[1]), d(a[2])
      r = sub(du == 0 and 0 or du / s(2), dv == 0 and 0 or s(1) * dv / (s(2) * s(2)))
    elseif op == "pow" then -- (u^v)' = v u^(v-1) u' + u^v log(u) v'
      local du, dv = d(a[1]), d(a[2])
      r = add(du == 0 and 0 or s(2) * T.op("pow", s(1), s(2) - 1) * du,
        dv == 0 and 0 or T.sym(i) * T.op("log", s(1)) * dv)
    elseif op == "log" then r = mul(d(a[1]), 1 / s(1))
    elseif op == "exp" then r = mul(T.sym(i), d(a[1]))
    elseif op == "sqrt" then r = mul(d(a[1]), 0.5 / T.sym(i))
    elseif op == "log1p" then r = mul(d(a[1]), 1 / (1 + s(1)))
    elseif op == "expm1" then r = mul(T.op("exp", s(1)), d(a[1]))
    elseif op == "tanh" then r = mul(1 - T.sym(i) * T.sym(i), d(a[1]))
    elseif op == "normal_cdf" then r = mul(T.op("exp", -0.5 * s(1) * s(1)) / SQRT_2PI, d(a[1]))
    elseif op == "abs" then
      local du = d(a[1])
      r = du == 0 and 0 or T.op("where", T.op("lt", s(1), 0), -du, du)
    elseif op == "floor" or op == "ceil" or op == "idiv" then r = 0
    elseif op == "mod" then r = sub(d(a[1]), mul(T.op("floor", s(1) / s(2)), d(a[2]))) -- a - floor(a/b) b
    elseif op == "min" or op == "max" then
      local du, dv = d(a[1]), d(a[2])
      if du == 0 and dv == 0 then r = 0
      else r = T.op("where", T.op(op == "min" and "lt" or "gt", s(1), s(2)), du, dv) end
    elseif op == "where" then
      local da, db = d(a[2]), d(a[3])
      if da == 0 and db == 0 then r = 0 else r = T.op("where", s(1), da, db) end
    else
      fail("no derivative is known for '" .. op .. "'")
    end
    memo[i] = r
    return r
  end
  return d(id)
end

-- lcm.diff(y, x): y a traced value (or a number), x a continuous state or
-- action of the regime (a function's argument).  Returns a traced value or
-- the number 0.
function D.diff(y, x)
  local function fail(msg) T.fail("lcm.diff: " .. msg, T.user_where()) end
  T.continuous_variable(x, fail)
  if type(y) == "number" then return 0 end
  if T.is_param(y) then y = T.sym(T.to_id(y, "lcm.diff")) end
  if not T.is_sym(y) then fail("the first argument must be a number or a traced value") end
  T.consume({ y.id, x.id }) -- both reach the result (for the tracer's checks), also when it is a constant
  local r = derivative(y.id, x.id, fail)
  if r == 0 then return T.sym(T.const_id(0)) end
  return r
end

return D
