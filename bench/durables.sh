#!/bin/sh
# Druedahl (2021)'s durable model (models/durables.lua) by grid search over
# shares (-D solver=vfi), grid search over levels (vfi_levels) and the
# nested endogenous grid method (negm), at the sizes given: for each, the
# solve (median of REPEAT runs of `lcm solve` with the solver cached, each a
# fresh process; the solve as lcm logs it), the peak resident memory of one
# solve (GNU time), and the Euler errors of `lcm run --euler` along the
# bundled panel (50 subjects; vfi's shares have no margin: "-").  Prints;
# asserts nothing.  BACKEND (default cpu) is lcm's --backend.
#   Usage: sh bench/durables.sh [BUILD_DIR] [REPEAT] [-D ...]...
# e.g.     sh bench/durables.sh build 3 -D a_points=20 -D p_points=10 -D n_points=10 -D d_points=20 -D c_points=100
set -eu
BUILD=${1:-build}
REPEAT=${2:-3}
shift 2 2>/dev/null || shift $#
SRC=$(cd "$(dirname "$0")/.." && pwd)
BACKEND=${BACKEND:-cpu}
LCM=$BUILD/bin/lcm
MODEL=$SRC/models/durables.lua
PARAMS=$SRC/models/durables.params.lua
OUT=$(mktemp -d "${TMPDIR:-/tmp}/durables-XXXXXX")
trap 'rm -rf "$OUT"' EXIT
echo "== durables, options: $*; $(nproc) cores, $BACKEND backend, float64, median of $REPEAT solves"
printf '%-11s %10s %12s %28s\n' solver "solve (s)" "peak (MiB)" "Euler errors: mean (p5, p95)"
for solver in vfi vfi_levels negm; do
  "$LCM" compile "$MODEL" "$@" -D solver="$solver" --backend "$BACKEND" --log-level warning >/dev/null
  times=""
  for i in $(seq "$REPEAT"); do
    t=$("$LCM" solve "$MODEL" "$@" -D solver="$solver" --backend "$BACKEND" --params "$PARAMS" --out "$OUT/v$i.h5" --log-level info \
        --no-progress 2>&1 | sed -n 's/.* in \([0-9.]*\) s: wrote.*/\1/p')
    times="$times $t"
    rm -f "$OUT/v$i.h5"
  done
  median=$(echo "$times" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  peak=-
  [ -x /usr/bin/time ] && peak=$(/usr/bin/time -f '%M' "$LCM" solve "$MODEL" "$@" -D solver="$solver" --backend "$BACKEND" --params "$PARAMS" --out "$OUT/p.h5" \
         --log-level off --no-progress 2>&1 | tail -1)
  rm -f "$OUT/p.h5"
  euler=$("$LCM" run "$MODEL" "$@" -D solver="$solver" --backend "$BACKEND" --out-dir "$OUT/run" --euler --log-level off --no-progress \
          2>/dev/null | awk '$1 == "panel" { printf "%.2f (%.2f, %.2f)", $4, $5, $7 }') || true
  rm -rf "$OUT/run"
  printf '%-11s %10s %12s %28s\n' "$solver" "$median" "$(echo "$peak" | awk '$1 + 0 > 0 { printf "%.0f", $1 / 1024; next } { print "-" }')" "${euler:--}"
done
