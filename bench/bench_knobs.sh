#!/bin/sh
# Figures for the knobs of docs/tuning.md and the cost of the checks:
#   splay   bench_solve on saving_choice (income x wealth x saving =
#           N/4 x N x N) with income batch_size 0, N/8 and N/32 (its
#           continuation table reads income): wall time, the table's bytes
#           and peak host/device memory; and on precautionary_savings
#           (wealth x consumption = N x N; its expected-V table, made once
#           a period, is the same for every chunk) with wealth batch_size
#           0, N/2 and N/8;
#   table   saving_choice 21 x N x N with its continuation table and
#           computed inline (LCM_NO_TABLES=1); precautionary_savings N x N
#           with the expected V of its income process and summing the 5
#           nodes inline (LCM_NO_TABLES=1);
#   checks  the same model solved with --checks warn (checks on) and
#           --checks off, and tests/models/sharded.lua (Markov states and regimes);
#   shard   tests/models/sharded.lua on 1 worker, --devices 2, and
#           mpirun -np 2 (one thread each) when mpirun is there.
# Prints; asserts nothing.  Usage: sh bench/bench_knobs.sh [BUILD_DIR] [N] [REPEAT]
set -eu
BUILD=${1:-build}
N=${2:-500}
REPEAT=${3:-21}
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$BUILD/bin/bench_solve
PS="$SRC/models/precautionary_savings.lua --params $SRC/models/precautionary_savings.params.lua -D wealth_points=$N -D consumption_points=$N"
SH="$SRC/tests/models/sharded.lua --params $SRC/tests/models/sharded.params.lua -D wealth_points=300 -D consumption_points=300"
line() { grep -E "^(solve |peak|continuation)" | tr -s ' ' | tr '\n' ';'; echo; }

I=$((N / 4))
SC="$SRC/models/saving_choice.lua --params $SRC/models/saving_choice.params.lua -D income_points=$I -D wealth_points=$N"
echo "== splay: saving_choice ${I}x${N}x$N, income batch_size (median of $REPEAT)"
for b in 0 $((I / 2)) $((I / 8)); do
  printf 'batch_size %-5s ' "$b"
  $B $SC -D income_batch=$b --repeat "$REPEAT" | line
done

SC21="$SRC/models/saving_choice.lua --params $SRC/models/saving_choice.params.lua -D income_points=21 -D wealth_points=$N"
echo "== continuation table: saving_choice 21x${N}x$N, with and without (LCM_NO_TABLES=1), median of $REPEAT"
printf 'table            '; $B $SC21 --repeat "$REPEAT" | line
printf 'inline           '; LCM_NO_TABLES=1 $B $SC21 --repeat "$REPEAT" | line
echo "== expected V: precautionary_savings ${N}x$N, with and without (LCM_NO_TABLES=1), median of $REPEAT"
printf 'expected V       '; $B $PS --repeat "$REPEAT" | line
printf 'inline           '; LCM_NO_TABLES=1 $B $PS --repeat "$REPEAT" | line

echo "== splay: precautionary_savings ${N}x$N, wealth batch_size (median of $REPEAT)"
for b in 0 $((N / 2)) $((N / 8)); do
  printf 'batch_size %-5s ' "$b"
  $B $PS -D wealth_batch=$b --repeat "$REPEAT" | line
done

echo "== checks: on (--checks warn) vs off, alternating"
for i in 1 2; do
  for checks in warn off; do
    printf 'precautionary_savings %-7s ' "$checks"; $B $PS --repeat "$REPEAT" --checks $checks | line
    printf 'sharded (Markov)      %-7s ' "$checks"; $B $SH -D axes=0 --repeat "$REPEAT" --checks $checks | line
  done
done

echo "== shard: tests/models/sharded.lua (type x group = 6 values), cpu, the solve as lcm times it (median of $REPEAT)"
L=$BUILD/bin/lcm
out=$(mktemp -d)
# the median of the "solved model ... in X s" lines of REPEAT runs of a command
solve_median() {
  for i in $(seq "$REPEAT"); do
    "$@" --log-level progress --csv "$out/v.csv" 2>&1 | sed -n "s/.*solved model .* in \([0-9.]*\) s/\1/p"
  done | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)] " s"}'
}
printf '1 worker, all threads           '; solve_median "$L" solve $SH -D axes=2 --backend cpu
printf '1 worker, 1 thread              '; solve_median "$L" solve $SH -D axes=2 --backend cpu --threads 1
printf '2 workers (--devices 2)         '; solve_median "$L" solve $SH -D axes=2 --backend cpu --devices 2
if command -v mpirun > /dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  printf 'mpirun -np 2, 1 thread each     '; solve_median mpirun -np 2 "$L" solve $SH -D axes=2 --backend cpu --threads 1
fi
rm -rf "$out"
