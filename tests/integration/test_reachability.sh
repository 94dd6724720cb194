#!/bin/bash
# lcmgen --reachability: the printed regime graph of bundled models, exactly
# (mortality: Markov moves with run-time probabilities; iskhakov_2017: a
# deterministic transition over age, so retirement -> dead only at 80), and
# the warning for a regime nothing moves into, from lcmgen and from lcm.
. "${BASH_SOURCE%/*}/common.sh"
work_dir reach

cat > "$work/mortality.want" <<'TXT'
model 'mortality': 3 regimes, ages 50 to 80
regimes (ages active):
  working  50-75
  retired  50-75
  dead     50-80 (terminal)
moves (source -> target: ages of the source):
  working -> working  50-70
  working -> retired  50-70
  working -> dead     50-75
  retired -> retired  50-70
  retired -> dead     50-75
TXT
"$LCMGEN" "$SRC/models/mortality.lua" --reachability > "$work/mortality.got" 2> "$work/mortality.err"
check "mortality: the graph" "diff '$work/mortality.want' '$work/mortality.got'"
check "mortality: no warning" "[ ! -s '$work/mortality.err' ]"
check "--reachability alone writes nothing" "[ -z \"\$(ls -A '$work' | grep -v -e mortality -e cache)\" ]"

cat > "$work/iskhakov.want" <<'TXT'
model 'iskhakov_2017': 3 regimes, ages 40 to 90
regimes (ages active):
  working_life  40-80
  retirement    40-80
  dead          40-90 (terminal)
moves (source -> target: ages of the source):
  working_life -> working_life  40-70
  working_life -> retirement    40-70
  working_life -> dead          40-80
  retirement   -> retirement    40-70
  retirement   -> dead          80
TXT
"$LCMGEN" "$SRC/models/iskhakov_2017.lua" --reachability -o "$work/gen" > "$work/iskhakov.got"
check "iskhakov_2017: the graph" "diff '$work/iskhakov.want' '$work/iskhakov.got'"
check "--reachability with -o also generates" "[ -s '$work/gen/kernels.c' ] && [ -s '$work/gen/manifest.lcm' ]"

# a short horizon: moves whose target is never active next are left out
"$LCMGEN" "$SRC/models/mortality.lua" -D n_periods=2 --reachability > "$work/short.got"
check "mortality, 2 periods: only deaths" "[ \"\$(sed -n '/^moves/,\$p' '$work/short.got' | tail -n +2)\" = \"\$(printf '  working -> dead     50\n  retired -> dead     50')\" ]"

# `late` is active from age 2 only and nothing moves into it
cat > "$work/late.lua" <<'LUA'
local lcm = require("lcm")
local Regime = lcm.categorical{ "early", "late", "dead", name = "Regime" }
local early = lcm.regime{
  active = function(age) return age < 3 end,
  functions = { utility = function() return 1 end },
  transition = lcm.markov(function(age) return { early = lcm.where(age:lt(2), 1, 0), dead = lcm.where(age:lt(2), 0, 1) } end),
}
local late = lcm.regime{
  active = function(age) return age == 2 end,
  functions = { utility = function() return 2 end },
  transition = function() return Regime.dead end,
}
local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
return lcm.model{
  ages = lcm.ages{ start = 0, stop = 3 },
  regime_ids = Regime,
  regimes = { early = early, late = late, dead = dead },
}
LUA
cat > "$work/late.want" <<'TXT'
model 'late': 3 regimes, ages 0 to 3
regimes (ages active):
  early  0-2
  late   2
  dead   0-3 (terminal)
moves (source -> target: ages of the source):
  early -> early  0-1
  early -> dead   2
  late  -> dead   2
entered only from initial conditions: late
TXT
"$LCMGEN" "$work/late.lua" --reachability > "$work/late.got" 2> "$work/late.err"
check "late: the graph" "diff '$work/late.want' '$work/late.got'"
warning="late.lua:8: regime 'late' (active at ages 2) is not active at the first age (0) and no other regime can move into it: only subjects whose initial conditions start in it will ever be there"
check "lcmgen warns of late" "grep -qF \"lcmgen: warning: \" '$work/late.err' && grep -qF \"$warning\" '$work/late.err'"
"$LCM" solve "$work/late.lua" --set discount_factor=0.9 --csv "$work/v.csv" 2> "$work/solve.err"
check "lcm solve warns of late too" "grep -qF \"$warning\" '$work/solve.err'"
"$LCMGEN" "$SRC/models/tiny.lua" -o "$work/tiny" 2> "$work/tiny.err"
check "a model every regime of which is reached: no warning" "[ ! -s '$work/tiny.err' ]"

rm -rf "$work"
exit $fail
