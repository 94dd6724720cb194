#!/bin/sh
# What calling lcm from Python costs: the same estimation loop (solve +
# simulate + a moment, ITERATIONS times, Iskhakov et al. 2017) in C
# (estimation_loop.c on liblcm) and in Python (estimation_loop.py on
# lcmgen), each run REPEAT times, alternating; prints every run and the
# medians and their ratio.  The solver is compiled once before (the cache):
# no run compiles.
#
#   sh bench/python/overhead.sh BUILD PYTHON [ITERATIONS] [REPEAT]
#
# BUILD: a build folder with bin/estimation_loop and bin/lcmgen; PYTHON: an
# interpreter that imports lcmgen (a venv where it is installed).
set -eu
B=$(cd "$1" && pwd)
PY=$2
N=${3:-1000}
R=${4:-5}
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/bin/lcmgen" models/iskhakov_2017.lua -o "$T/model"
INITIAL=models/iskhakov_2017.initial.csv
"$B/bin/estimation_loop" "$T/model" "$INITIAL" 1 >/dev/null  # fills the cache: the runs below compile nothing
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
for i in $(seq "$R"); do
  "$B/bin/estimation_loop" "$T/model" "$INITIAL" "$N" | tee -a "$T/c"
  "$PY" bench/python/estimation_loop.py "$T/model" "$INITIAL" "$N" | tee -a "$T/py"
  "$PY" bench/python/estimation_loop.py "$T/model" "$INITIAL" "$N" --space | tee -a "$T/space"
done
median() { awk '{print $4}' "$1" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
c=$(median "$T/c"); py=$(median "$T/py"); sp=$(median "$T/space")
echo "median of $R runs of $N iterations: C $c s, Python (dict) $py s, Python (vector) $sp s"
awk -v c="$c" -v p="$py" -v s="$sp" 'BEGIN {printf "Python / C: %.3f (dict), %.3f (vector)\n", p / c, s / c}'
