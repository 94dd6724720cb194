-- lcm/reach.lua - which regime can reach which, and at which ages.
--
-- The one owner of the model's static regime graph.  A move (t, source,
-- target) exists when the source is active in period t, the target is
-- active in period t+1, and the probability of the move is not known to be
-- 0 then (it is known when it depends on nothing but constants, age and
-- period: a constant Markov probability, a deterministic transition over
-- age).  A probability known to be positive towards a target inactive in
-- t+1 is an error.  build.lua traces the regimes, asks here which targets
-- can be entered at all (to trace their next states) and hands the
-- finished graph back for the warnings and `lcmgen --reachability`.

local Reach = {}

local function num(x) return string.format("%.15g", x) end

-- The periods (1-based, of the source) in which R can move into TR, given
-- that TR is one of R's possible targets; prob_at(t), when given, is the
-- move's probability in period t where the generator knows it, else nil.
function Reach.move_periods(M, R, TR, prob_at)
  local out = {}
  for t = 1, #M.ages - 1 do
    if R.active[t] and TR.active[t + 1] and not (prob_at and prob_at(t) == 0) then out[#out + 1] = t end
  end
  return out
end

-- A move known to happen with a positive probability into a regime that
-- is inactive in the next period (the solve would stop there, exit 7).
function Reach.check_entered_active(M, R, TR, prob_at, where)
  for t = 1, #M.ages - 1 do
    local p = R.active[t] and not TR.active[t + 1] and prob_at(t)
    if p and p ~= 0 then
      error(string.format("%s: regime '%s' moves to regime '%s' at age %s (period %d) with probability %s, but " ..
        "'%s' is not active at age %s (period %d; it is active at ages %s): make it active then or give the move " ..
        "probability 0 there", where, R.name, TR.name, num(M.ages[t]), t - 1, num(p), TR.name, num(M.ages[t + 1]), t,
        Reach.ages_text(M, Reach.active_periods(M, TR))), 0)
    end
  end
end

-- Periods as ages, runs of consecutive periods joined: "50-70, 80".
function Reach.ages_text(M, periods)
  if #periods == 0 then return "none" end
  local parts, i = {}, 1
  while i <= #periods do
    local j = i
    while j < #periods and periods[j + 1] == periods[j] + 1 do j = j + 1 end
    parts[#parts + 1] = num(M.ages[periods[i]]) .. (j > i and "-" .. num(M.ages[periods[j]]) or "")
    i = j + 1
  end
  return table.concat(parts, ", ")
end

function Reach.active_periods(M, R)
  local out = {}
  for t = 1, #M.ages do
    if R.active[t] then out[#out + 1] = t end
  end
  return out
end

-- The graph from each regime's moves (moves[i]: { to = regime index,
-- periods = move_periods } in id order; empty for a terminal regime).
function Reach.graph(M, moves)
  local G = { M = M, moves = {} }
  for i in ipairs(M.regimes) do
    for _, mv in ipairs(moves[i]) do
      if #mv.periods > 0 then G.moves[#G.moves + 1] = { from = i, to = mv.to, periods = mv.periods } end
    end
  end
  return G
end

-- Regimes that no other regime moves into and that are not active in the
-- first period: only subjects whose initial conditions start there (at a
-- later age) will ever be in them.
function Reach.unreached(G)
  local M, entered, out = G.M, {}, {}
  for _, mv in ipairs(G.moves) do
    if mv.from ~= mv.to then entered[mv.to] = true end
  end
  for i, R in ipairs(M.regimes) do
    if not entered[i] and not R.active[1] then out[#out + 1] = R end
  end
  return out
end

function Reach.warnings(G, warn)
  local M = G.M
  for _, R in ipairs(Reach.unreached(G)) do
    warn(string.format("%s: regime '%s' (active at ages %s) is not active at the first age (%s) and no other " ..
      "regime can move into it: only subjects whose initial conditions start in it will ever be there",
      R.where, R.name, Reach.ages_text(M, Reach.active_periods(M, R)), num(M.ages[1])))
  end
end

-- The text `lcmgen --reachability` prints: each regime's ages, then each
-- move with the ages of the source at which it can happen.
function Reach.text(G)
  local M = G.M
  local width = 0
  for _, R in ipairs(M.regimes) do width = math.max(width, #R.name) end
  local out = { string.format("model '%s': %d regimes, ages %s to %s", M.name, #M.regimes, num(M.ages[1]),
    num(M.ages[#M.ages])), "regimes (ages active):" }
  for _, R in ipairs(M.regimes) do
    out[#out + 1] = string.format("  %-" .. width .. "s  %s%s", R.name, Reach.ages_text(M, Reach.active_periods(M, R)),
      R.terminal and " (terminal)" or "")
  end
  out[#out + 1] = "moves (source -> target: ages of the source):"
  for _, mv in ipairs(G.moves) do
    out[#out + 1] = string.format("  %-" .. width .. "s -> %-" .. width .. "s  %s", M.regimes[mv.from].name,
      M.regimes[mv.to].name, Reach.ages_text(M, mv.periods))
  end
  if #G.moves == 0 then out[#out + 1] = "  none" end
  local unreached = Reach.unreached(G)
  if #unreached > 0 then
    local names = {}
    for i, R in ipairs(unreached) do names[i] = R.name end
    out[#out + 1] = "entered only from initial conditions: " .. table.concat(names, ", ")
  end
  return table.concat(out, "\n") .. "\n"
end

return Reach
