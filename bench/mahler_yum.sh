#!/bin/sh
# Mahler & Yum (2024) at full size (models/mahler_yum_2024.lua: 1.6 million
# states, 6,000 actions, 39 periods): figures, and the check against pylcm's
# results.
#   compile   a cold compile: a fresh `lcm compile` with an empty cache;
#   solve     `lcm solve` with the solver cached: the solve as lcm logs it,
#             the whole process and its peak resident memory (GNU time);
#   V         every period of pylcm's sub-grid slice, and V at periods 0, 1
#             and 37 at every grid point when the full reference is at hand
#             (REF, default ../shared/reference/mahler_yum_2024/pylcm_64cf042c):
#             the largest relative difference (the acceptance is 1e-8);
#   cpu       with COMPARE_CPU=1 and another backend: the solve again on the
#             cpu, and V of every period against it (issue 40: 1e-10);
#   simulate  `lcm simulate --solution` of 100 subjects (pylcm's benchmark)
#             and of 20,000 (the reference's panel), whole process;
#   moments   by age over the 20,000: each mean and share against pylcm's
#             (another random stream), in standard errors of the difference.
# Prints; asserts nothing.  Every figure is one run (a solve takes minutes
# on a CPU).  Usage: sh bench/mahler_yum.sh [BUILD_DIR] [BACKEND] [OUT_DIR]
set -eu
BUILD=${1:-build}
BACKEND=${2:-cpu}
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${3:-$(mktemp -d "${TMPDIR:-/tmp}/mahler-yum-XXXXXX")}
REF=${REF:-$SRC/../shared/reference/mahler_yum_2024/pylcm_64cf042c}
LCM=$BUILD/bin/lcm
VCMP=$BUILD/bin/v_compare
MODEL=$SRC/models/mahler_yum_2024.lua
PARAMS=$SRC/models/mahler_yum_2024.params.lua
INITIAL=$SRC/models/mahler_yum_2024.initial.lua
mkdir -p "$OUT"
echo "== Mahler & Yum (2024), backend $BACKEND, $(nproc) cores, outputs in $OUT"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# runs "$@" under GNU time when it is there: prints the wall time and the
# peak resident memory
measure() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f 'whole process %e s, peak resident %M KiB' "$@"
  else
    t0=$(now); "$@"; echo "whole process $(elapsed "$t0" "$(now)") s" >&2
  fi
}

cache=$(mktemp -d)
t0=$(now)
LCM_CACHE_DIR=$cache "$LCM" compile "$MODEL" --backend "$BACKEND" --log-level warning
echo "compile, cold (fresh process, empty cache): $(elapsed "$t0" "$(now)") s"

echo "== solve (solver cached)"
LCM_CACHE_DIR=$cache measure "$LCM" solve "$MODEL" --params "$PARAMS" --backend "$BACKEND" \
  --out "$OUT/solution.h5" 2>&1 | grep -E "solved|whole process|error"
[ -s "$OUT/solution.h5" ] || { echo "the solve wrote no solution"; exit 1; }

echo "== V against pylcm (float64)"
slice=$SRC/tests/reference/mahler_yum_2024/V_slice.h5
fixed="productivity_shock=2 lagged_effort=0 adjustment_cost=0"
p=0
while [ $p -le 37 ]; do
  printf 'period %2d, sub-grid: ' $p
  "$VCMP" "$slice" /V/alive/slice_all_periods "$OUT/solution.h5" /V/period_$p/alive period=$p $fixed || true
  p=$((p + 1))
done
if [ -f "$REF/V.h5" ]; then
  for p in 0 1 37; do
    printf 'period %2d, every point: ' $p
    "$VCMP" "$REF/V.h5" /V/alive/period_$p "$OUT/solution.h5" /V/period_$p/alive || true
  done
else
  echo "(no $REF/V.h5: V at every point of periods 0, 1 and 37 not compared)"
fi

if [ "${COMPARE_CPU:-0}" = 1 ] && [ "$BACKEND" != cpu ]; then
  echo "== V of the cpu against $BACKEND (float64, every period)"
  LCM_CACHE_DIR=$cache measure "$LCM" solve "$MODEL" --params "$PARAMS" --backend cpu \
    --out "$OUT/solution_cpu.h5" 2>&1 | grep -E "solved|whole process|error"
  p=0
  while [ $p -le 37 ]; do
    printf 'period %2d, cpu vs %s: ' $p "$BACKEND"
    "$VCMP" "$OUT/solution_cpu.h5" /V/period_$p/alive "$OUT/solution.h5" /V/period_$p/alive || true
    p=$((p + 1))
  done
fi

for n in 100 20000; do
  echo "== simulate $n subjects (from the saved solution)"
  LCM_CACHE_DIR=$cache measure "$LCM" simulate "$MODEL" --solution "$OUT/solution.h5" --params "$PARAMS" \
    --initial "$INITIAL" --subjects $n --seed 0 --backend "$BACKEND" --targets all \
    --csv "$OUT/panel_$n.csv" 2>&1 | grep -E "simulated|whole process|error"
  [ -s "$OUT/panel_$n.csv" ] || { echo "the simulation of $n subjects wrote no panel"; exit 1; }
done

echo "== moments by age, 20,000 subjects, against pylcm's (|z| = difference / its standard error)"
awk -F, -v ref="$SRC/tests/reference/mahler_yum_2024/moments_by_age.csv" '
  # pylcm: group all, one row per period
  FNR == 1 && FILENAME == ref { for (i = 1; i <= NF; ++i) rc[$i] = i; next }
  FILENAME == ref { if ($rc["group"] == "all") for (k in rc) R[$rc["period"], k] = $rc[k]; next }
  FNR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  $c["regime"] != "alive" || $c["value"] == "" { next }
  {
    t = $c["period"]; n[t]++; if (t > last) last = t
    add(t, "wealth", $c["wealth"]); add(t, "saving", $c["saving"]); add(t, "consumption", $c["consumption"])
    add(t, "income", $c["income"]); add(t, "utility", $c["utility"]); add(t, "value", $c["value"])
    add(t, "effort_value", $c["effort_value"])
    add(t, "share_good_health", $c["health"] == "good")
    add(t, "share_labor_retired", $c["labor_supply"] == "retired")
    add(t, "share_labor_part_time", $c["labor_supply"] == "part_time")
    add(t, "share_labor_full_time", $c["labor_supply"] == "full_time")
  }
  function add(t, k, x) { S[t, k] += x; Q[t, k] += x * x; keys[k] = 1 }
  END {
    for (k in keys) {
      worst = 0; over = 0; cmp = 0
      for (t = 0; t <= last; ++t) {
        if (!n[t] || R[t, "n_alive"] == "") continue
        m = S[t, k] / n[t]; v = Q[t, k] / n[t] - m * m; if (v < 0) v = 0
        share = k ~ /^share_/
        rm = share ? R[t, k] : R[t, k "_mean"]
        rv = share ? rm * (1 - rm) : R[t, k "_std"] ^ 2
        se = sqrt(v / n[t] + rv / R[t, "n_alive"])
        z = se > 0 ? (m - rm) / se : (m == rm ? 0 : 1e9)
        if (z < 0) z = -z
        cmp++; if (z > worst) { worst = z; at = t }; if (z > 4) over++
      }
      printf "%-22s %2d periods, largest |z| %5.2f (period %d), %d above 4\n", k, cmp, worst, at, over
    }
  }' "$SRC/tests/reference/mahler_yum_2024/moments_by_age.csv" "$OUT/panel_20000.csv" | sort
rm -rf "$cache"
