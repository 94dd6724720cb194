-- lcm/reach.lua - which regime can reach which, and at which ages.
--
-- The one owner of the model's static regime graph.  A move (t, source,
-- target) exists when the source is active in period t, can move to the
-- target (its probability is not the constant 0, or a deterministic
-- transition can return it) and the target is active in period t+1.
-- build.lua traces the regimes, asks here whether a target is ever entered
-- (to trace its next states, or to refuse a declared target that never is),
-- and hands the finished graph back for the warnings and `lcmgen
-- --reachability`.

local Reach = {}

-- The periods (1-based, of the source) in which R can move into TR, given
-- that TR is one of R's possible targets.
function Reach.move_periods(M, R, TR)
  local out = {}
  for t = 1, #M.ages - 1 do
    if R.active[t] and TR.active[t + 1] then out[#out + 1] = t end
  end
  return out
end

local function num(x) return string.format("%.15g", x) end

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

-- The graph from each regime's possible targets (targets[i]: regime
-- indices, 1-based, in id order; absent for a terminal regime).
function Reach.graph(M, targets)
  local G = { M = M, moves = {} }
  for i, R in ipairs(M.regimes) do
    for _, j in ipairs(targets[i] or {}) do
      local periods = Reach.move_periods(M, R, M.regimes[j])
      if #periods > 0 then G.moves[#G.moves + 1] = { from = i, to = j, periods = periods } end
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
