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
-- branch of lcm.where below; floor, ceil, the integer quotient and a
-- condition used as 0 or 1 are flat (0); a condition itself has no
-- derivative (an error), and lcm.where(c, a, b) differentiates to
-- lcm.where(c, a', b').  E_next_V has
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

-- The derivative of each node with respect to node x, given the
-- derivatives of its operands (d[a]).
local function rule(i, x, d, fail)
  local n = T.node(i)
  local a, s = n.args, function(k) return T.sym(n.args[k]) end
  local op = n.op
  if i == x then return 1 end
  if op == "const" or op == "param" or op == "pidx" or op == "age" or op == "period" or
    op == "state" or op == "action" or op == "egm_savings" or op == "egm_marginal" then return 0 end
  if op == "enext" then
    fail("E_next_V has no derivative when the model is generated (it depends on next period's V)")
  end
  if n.type == "bool" then return 0 end -- a condition used as 0 or 1 is flat where it is defined
  if op == "neg" then return neg(d[a[1]]) end
  if op == "add" then return add(d[a[1]], d[a[2]]) end
  if op == "sub" then return sub(d[a[1]], d[a[2]]) end
  if op == "mul" and a[1] == a[2] then return mul(2 * s(1), d[a[1]]) end -- u^2 traced as u * u
  if op == "mul" then return add(mul(d[a[1]], s(2)), mul(s(1), d[a[2]])) end
  if op == "div" then -- (u / v)' = u' / v - u v' / v^2
    local du, dv = d[a[1]], d[a[2]]
    return sub(du == 0 and 0 or du / s(2), dv == 0 and 0 or s(1) * dv / (s(2) * s(2)))
  end
  if op == "pow" then -- (u^v)' = v u^(v-1) u' + u^v log(u) v'
    local du, dv = d[a[1]], d[a[2]]
    return add(du == 0 and 0 or s(2) * T.op("pow", s(1), s(2) - 1) * du,
      dv == 0 and 0 or T.sym(i) * T.op("log", s(1)) * dv)
  end
  if op == "log" then return mul(d[a[1]], 1 / s(1)) end
  if op == "exp" then return mul(T.sym(i), d[a[1]]) end
  if op == "sqrt" then return mul(d[a[1]], 0.5 / T.sym(i)) end
  if op == "log1p" then return mul(d[a[1]], 1 / (1 + s(1))) end
  if op == "expm1" then return mul(T.op("exp", s(1)), d[a[1]]) end
  if op == "tanh" then return mul(1 - T.sym(i) * T.sym(i), d[a[1]]) end
  if op == "normal_cdf" then return mul(T.op("exp", -0.5 * s(1) * s(1)) / SQRT_2PI, d[a[1]]) end
  if op == "abs" then
    local du = d[a[1]]
    return du == 0 and 0 or T.op("where", T.op("lt", s(1), 0), -du, du)
  end
  if op == "floor" or op == "ceil" or op == "idiv" then return 0 end
  if op == "mod" then return sub(d[a[1]], mul(T.op("floor", s(1) / s(2)), d[a[2]])) end -- a - floor(a/b) b
  if op == "min" or op == "max" then
    local du, dv = d[a[1]], d[a[2]]
    if du == 0 and dv == 0 then return 0 end
    return T.op("where", T.op(op == "min" and "lt" or "gt", s(1), s(2)), du, dv)
  end
  if op == "where" then
    local da, db = d[a[2]], d[a[3]]
    if da == 0 and db == 0 then return 0 end
    return T.op("where", s(1), da, db)
  end
  fail("no derivative is known for '" .. op .. "'")
end

-- The derivative of node y with respect to node x: the nodes y reaches,
-- then their derivatives in the order of their ids (a node's operands have
-- smaller ids).
local function derivative(y, x, fail)
  local d = {}
  for _, i in ipairs(T.reachable(y)) do d[i] = rule(i, x, d, fail) end
  return d[y]
end

-- The derivative of node y with respect to node x (any node: the endogenous
-- grid method differentiates by its savings leaf), as a traced value or the
-- number 0; fail(msg) where a rule is missing.
D.derivative = derivative

-- lcm.diff(y, x): y a traced value (or a number), x a continuous state or
-- action of the regime (a function's argument).  Returns a traced value or
-- the number 0.
function D.diff(y, x)
  local function fail(msg) T.fail("lcm.diff: " .. msg, T.user_where()) end
  T.continuous_variable(x, fail)
  if type(y) == "number" then return T.sym(T.const_id(0)) end
  if T.is_param(y) then y = T.sym(T.to_id(y, "lcm.diff")) end
  if not T.is_sym(y) then fail("the first argument must be a number or a traced value") end
  if T.type_of(y) == "bool" then
    fail("a comparison or condition has no derivative (differentiate the values lcm.where chooses between)")
  end
  T.consume({ y.id, x.id }) -- both reach the result (for the tracer's checks), also when it is a constant
  local r = T.at(T.user_where(), derivative, y.id, x.id, fail) -- every new node at this call's line
  if type(r) == "number" then return T.sym(T.const_id(r)) end
  return r
end

return D
