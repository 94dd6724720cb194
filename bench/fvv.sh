#!/bin/sh
# Fernández-Villaverde & Zarruk Valencia (2018), the life cycle of
# models/fvv_2018.lua, against bench/fvv_openmp.c, a hand-written OpenMP
# program of their loops (constants fixed, double), on this machine's
# cores:
#   - the hand-written program's solve (median of REPEAT);
#   - lcm's solve with the parameters fixed in the model and given at run
#     time (bench_solve, median of REPEAT), and the ratios;
#   - the largest difference between lcm's V and the program's.
# Prints; asserts nothing.  Usage: sh bench/fvv.sh [BUILD_DIR] [NX] [REPEAT]
set -eu
BUILD=${1:-build}
NX=${2:-1500}
REPEAT=${3:-5}
SRC=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
M=$SRC/models/fvv_2018.lua

echo "== FVV (2018) life cycle, nx $NX, 15 productivity points, 10 periods, double, $(nproc) cores"
"$BUILD/bin/fvv_openmp" "$NX" "$REPEAT" "$work/omp.csv" | tee "$work/omp.txt"
omp=$(sed -n 's/.*solve median \([0-9.]*\) s.*/\1/p' "$work/omp.txt")
median() { sed -n 's/^solve *\([0-9.e+-]*\) s (median.*/\1/p' "$1"; }
"$BUILD/bin/bench_solve" "$M" -D nx="$NX" -D fixed=true --repeat "$REPEAT" > "$work/fixed.txt"
"$BUILD/bin/bench_solve" "$M" -D nx="$NX" --params "$SRC/models/fvv_2018.params.lua" --repeat "$REPEAT" \
  > "$work/runtime.txt"
fixed=$(median "$work/fixed.txt") runtime=$(median "$work/runtime.txt")
awk -v o="$omp" -v f="$fixed" -v r="$runtime" 'BEGIN {
  printf "lcm, parameters fixed     solve median %.4f s: %.2fx the hand-written program\n", f, o / f
  printf "lcm, parameters run-time  solve median %.4f s: %.2fx the hand-written program, %.2fx slower than fixed\n", r, o / r, r / f
}'
grep -E "^throughput" "$work/fixed.txt" | sed 's/^/lcm, fixed: /'

# V: lcm's CSV (period, age, regime, assets, productivity, V; assets then
# productivity) against the program's (period, ix, ie, V), row by row
"$BUILD/bin/lcm" solve "$M" -D nx="$NX" -D fixed=true --backend cpu --csv "$work/lcm.csv" --log-level warning
paste -d, "$work/lcm.csv" "$work/omp.csv" | awk -F, 'NR > 1 {
  d = $6 - $10; if (d < 0) d = -d; if (d > worst) worst = d; n++
} END { printf "V: %d values, largest |lcm - hand-written| %.3g\n", n, worst }'
