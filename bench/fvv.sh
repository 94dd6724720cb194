#!/bin/sh
# Fernández-Villaverde & Zarruk Valencia (2018), the life cycle of
# models/fvv_2018.lua, against hand-written programs of their loops
# (constants fixed, double): bench/fvv_openmp.c on this machine's cores
# against lcm's cpu backend, and, where there is a GPU and nvcc,
# bench/fvv_cuda.cu on GPU 0 against lcm's cuda backend.  For each:
#   - the hand-written program's solve (median of REPEAT);
#   - lcm's solve with the parameters fixed in the model and given at run
#     time (bench_solve, median of REPEAT), and the ratios;
#   - the largest difference between lcm's V and the program's.
# Prints; asserts nothing.
#   Usage: sh bench/fvv.sh [BUILD_DIR] [NX] [REPEAT]
#   FVV_BACKENDS="cpu cuda" picks the comparisons (default: cpu, and cuda
#   when nvidia-smi sees a GPU and nvcc is on PATH or in /usr/local/cuda).
set -eu
BUILD=${1:-build}
NX=${2:-1500}
REPEAT=${3:-5}
SRC=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
M=$SRC/models/fvv_2018.lua
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -z "${FVV_BACKENDS:-}" ]; then
  FVV_BACKENDS=cpu
  if nvidia-smi -L >/dev/null 2>&1 && [ -x "$NVCC" ]; then FVV_BACKENDS="cpu cuda"; fi
fi

median() { sed -n 's/^solve *\([0-9.e+-]*\) s (median.*/\1/p' "$1"; }

# compare BACKEND PROGRAM_OUTPUT: lcm's two solves on BACKEND against the
# program's median, then lcm's V against the program's V.csv
compare() {
  be=$1 hand=$2
  t=$(sed -n 's/.*solve median \([0-9.]*\) s.*/\1/p' "$hand")
  "$BUILD/bin/bench_solve" "$M" -D nx="$NX" -D fixed=true --backend "$be" --repeat "$REPEAT" > "$work/fixed.txt"
  "$BUILD/bin/bench_solve" "$M" -D nx="$NX" --params "$SRC/models/fvv_2018.params.lua" --backend "$be" \
    --repeat "$REPEAT" > "$work/runtime.txt"
  fixed=$(median "$work/fixed.txt") runtime=$(median "$work/runtime.txt")
  awk -v o="$t" -v f="$fixed" -v r="$runtime" -v be="$be" 'BEGIN {
    printf "lcm %s, parameters fixed     solve median %.4f s: %.2fx the hand-written program\n", be, f, o / f
    printf "lcm %s, parameters run-time  solve median %.4f s: %.2fx the hand-written program, %.2fx slower than fixed\n", be, r, o / r, r / f
  }'
  grep -E "^throughput" "$work/fixed.txt" | sed "s/^/lcm $be, fixed: /"
  # V: lcm's CSV (period, age, regime, assets, productivity, V; assets then
  # productivity) against the program's (period, ix, ie, V), row by row
  "$BUILD/bin/lcm" solve "$M" -D nx="$NX" -D fixed=true --backend "$be" --csv "$work/lcm.csv" --log-level warning
  paste -d, "$work/lcm.csv" "$work/V.csv" | awk -F, -v be="$be" 'NR > 1 {
    d = $6 - $10; if (d < 0) d = -d; if (d > worst) worst = d; n++
  } END { printf "V, %s: %d values, largest |lcm - hand-written| %.3g\n", be, n, worst }'
}

for be in $FVV_BACKENDS; do
  rm -f "$work/V.csv" "$work/hand.txt" # nothing of the comparison before
  case $be in
  cpu)
    echo "== FVV (2018) life cycle, nx $NX, 15 productivity points, 10 periods, double, $(nproc) cores"
    "$BUILD/bin/fvv_openmp" "$NX" "$REPEAT" "$work/V.csv" > "$work/hand.txt"
    ;;
  cuda)
    echo "== the same on GPU 0: bench/fvv_cuda.cu (nvcc -O3 -arch=native) against lcm's cuda backend"
    "$NVCC" -O3 -arch=native -o "$work/fvv_cuda" "$SRC/bench/fvv_cuda.cu"
    "$work/fvv_cuda" "$NX" "$REPEAT" "$work/V.csv" > "$work/hand.txt"
    ;;
  *) echo "fvv.sh: FVV_BACKENDS: cpu or cuda, not '$be'" >&2; exit 2 ;;
  esac
  cat "$work/hand.txt"
  grep -q "solve median" "$work/hand.txt" || { echo "fvv.sh: the hand-written program printed no time" >&2; exit 1; }
  compare "$be" "$work/hand.txt"
done
