#!/bin/sh
# device-acceptance.sh - the checks and figures that only a GPU can give
# (the open issues' acceptance: simulation and start-up, kernel throughput,
# compute-sanitizer, the test suite with a device present), as one prepared
# run for a session that is lent a device for minutes.  Each step runs under
# its own time limit and under one deadline for the whole run, the most
# needed first, so that a run cut short still returns the steps before.
#
#   sh scripts/device-acceptance.sh BUILD_DIR OUT_DIR
#
# OUT_DIR gets two files: summary.txt (each step: its command, exit status,
# seconds and the lines that hold its figures) and all.log (every step's
# whole output).  Both are written as the steps go.
#
# Environment:
#   STEPS     the steps to run, in this order (default: all of them, below)
#   DEADLINE  seconds for the whole run (default 560: a device call's limit
#             is 600, and what is left of the lease must also start the
#             machine and carry the files)
#   BACKEND   cuda (default) or cpu: with cpu the same steps run on the cpu
#             backend and the GPU-only ones (gpu_tests, sanitizer) are
#             skipped, which is how tests/integration/test_device_acceptance.sh
#             keeps this script working between the sessions that have a GPU
#   QUICK=1   small sizes (the test's): every step's command, little work
#
# On the device machine (no Lua, HDF5 or MPI there), from the checkout's
# root, after `sh ../shared/tools/gpu-bundle.sh` here and with build-gpu
# carried:
#   . build-gpu/libs/setup.sh && sh scripts/device-acceptance.sh build-gpu "$OUT"
#
# The steps (issue: what each shows):
#   device        the GPU and the toolkit
#   gpu_tests     ctest -L gpu: cuda == cpu, the panels identical
#   sim_ps10      issue 11: PS 10 x 10, 1,000,000 subjects, float64 and
#                 float32 (at most 20 ms; peak host memory <= 1.5x the panel)
#   sim_ps200     issue 11: PS 200 x 200, 500,000 subjects (at most 20 ms)
#   start_tiny    issue 11: whole process of tiny with a cached solver and
#                 the bare CUDA context beside it (at most 0.3 s more)
#   ps4000        issue 15: PS 4000 x 4000 pairs/s (>= 3e11 in float64) and
#                 the roofline of each kernel
#   fvv15000      issue 15: FVV at nx 15000 against the hand-written CUDA
#                 kernel (>= 5x)
#   sanitizer     issue 11: compute-sanitizer's four tools, zero errors
#                 (SANITIZER_MODELS, default "tiny precautionary_savings";
#                 SANITIZER_PRECISIONS, default 64; the whole list is
#                 scripts/compute-sanitizer.sh without them, a call of its own)
#   mahler_yum    Mahler & Yum at full size (bench/mahler_yum.sh): solve,
#                 V against pylcm's, simulate
#   suite         the whole test suite with the device present
set -u
if [ $# -ne 2 ]; then
  echo "usage: sh scripts/device-acceptance.sh BUILD_DIR OUT_DIR" >&2
  exit 2
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "device-acceptance.sh: no build directory '$1'" >&2; exit 2; }
[ -x "$BUILD/bin/lcm" ] && [ -x "$BUILD/bin/bench_simulate" ] ||
  { echo "device-acceptance.sh: $BUILD has no bin/lcm or bin/bench_simulate (build first)" >&2; exit 2; }
# the steps' commands quote paths with ' (sh -c): a path holding one is refused
case "$SRC$BUILD$2" in *\'*) echo "device-acceptance.sh: a path holds a quote ('); use another" >&2; exit 2 ;; esac
BACKEND=${BACKEND:-cuda}
case $BACKEND in cuda|cpu) ;; *) echo "device-acceptance.sh: BACKEND must be cuda or cpu, not '$BACKEND'" >&2; exit 2 ;; esac
QUICK=${QUICK:-0}
DEADLINE=${DEADLINE:-560}
case $DEADLINE in ''|*[!0-9]*) echo "device-acceptance.sh: DEADLINE must be whole seconds, not '$DEADLINE'" >&2; exit 2 ;; esac
ALL_STEPS="device gpu_tests sim_ps10 sim_ps200 start_tiny ps4000 fvv15000 sanitizer mahler_yum suite"
STEPS=${STEPS:-$ALL_STEPS}
for s in $STEPS; do
  case " $ALL_STEPS " in *" $s "*) ;; *) echo "device-acceptance.sh: no step '$s' (steps: $ALL_STEPS)" >&2; exit 2 ;; esac
done
# the two files, new: a run never mixes its figures with an earlier one's
if [ -e "$2/summary.txt" ] || [ -e "$2/all.log" ]; then
  echo "device-acceptance.sh: '$2' holds a summary.txt or all.log already; name a new or empty directory" >&2
  exit 2
fi
mkdir -p "$2" || exit 2
OUT=$(cd "$2" && pwd)
SUMMARY=$OUT/summary.txt
LOG=$OUT/all.log
: > "$SUMMARY"
: > "$LOG"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export LCM_CACHE_DIR="$WORK/cache" # the steps share compiled solvers, and nothing of earlier runs

now() { date +%s; }
START=$(now)
M=$SRC/models
PS="$M/precautionary_savings.lua --params $M/precautionary_savings.params.lua"
PS_SIM="$PS --initial $M/precautionary_savings.initial.csv"

# the sizes: the issues' cases, or QUICK's
if [ "$QUICK" = 1 ]; then
  SUBJ_10=2000 SUBJ_200=1000 GRID_200=20 GRID_4000=200 FVV_NX=100 REPEAT=2
else
  SUBJ_10=1000000 SUBJ_200=500000 GRID_200=200 GRID_4000=4000 FVV_NX=15000 REPEAT=5
fi

# step NAME CAP PATTERN COMMAND: runs the shell command (sh -c) under
# min(CAP, what is left of the deadline) seconds; its output goes to all.log
# and the lines matching the extended regex PATTERN to the summary
step() {
  name=$1 cap=$2 pattern=$3 cmd=$4
  left=$((DEADLINE - ($(now) - START)))
  limit=$cap
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 10 ]; then
    skipped "$name" "$left s of the deadline left"
    return
  fi
  t0=$(now)
  cmd=$(echo "$cmd" | tr -s ' ')
  printf '\n== %s (limit %s s): %s\n' "$name" "$limit" "$cmd" >> "$LOG"
  before=$(wc -l < "$LOG")
  # straight into the log: a run stopped from outside keeps what the step printed
  timeout "$limit" sh -c "$cmd" >> "$LOG" 2>&1
  rc=$?
  tail -n "+$((before + 1))" "$LOG" > "$WORK/step.log"
  how="exit $rc"
  [ $rc -eq 124 ] && how="stopped at its limit of $limit s"
  [ $rc -eq 77 ] && how="skipped (exit 77)"
  printf '== %s: %s, %s s: %s\n' "$name" "$how" "$(($(now) - t0))" "$cmd" >> "$SUMMARY"
  grep -E "$pattern" "$WORK/step.log" | sed 's/^/  /' >> "$SUMMARY"
}

# skipped NAME WHY: a step that does not run here
skipped() {
  printf '== %s: skipped (%s)\n' "$1" "$2" >> "$SUMMARY"
}
NEEDS_GPU="BACKEND=cpu: it needs a GPU"

SIM_FIGURES='^(model|backend|subjects|simulate|  its parts|throughput|peak|whole process|write)'
SOLVE_FIGURES='^(model|backend|work|compile|solver|whole process|bare CUDA|solve |throughput|peak|  peaks|  lcm_k)'

for s in $STEPS; do
  case $s in
  device)
    step device 30 '.' "nvidia-smi -L && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo 'no GPU (nvidia-smi)'; \
      (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | tail -2; echo \"\$(nproc) cores, \$(uname -m)\"" ;;
  gpu_tests)
    if [ "$BACKEND" = cpu ]; then skipped gpu_tests "$NEEDS_GPU"; continue; fi
    step gpu_tests 150 'tests passed|tests failed|\(Failed\)|\*\*\*' \
      "ctest --test-dir '$BUILD' -L gpu --output-on-failure" ;;
  sim_ps10)
    for p in 64 32; do
      step "sim_ps10_f$p" 45 "$SIM_FIGURES" \
        "'$BUILD/bin/bench_simulate' $PS_SIM --subjects $SUBJ_10 --backend $BACKEND --precision $p \
          -D wealth_points=10 -D consumption_points=10 --repeat $REPEAT --write-repeat 0 --whole-repeat 0"
    done ;;
  sim_ps200)
    step sim_ps200 45 "$SIM_FIGURES" \
      "'$BUILD/bin/bench_simulate' $PS_SIM --subjects $SUBJ_200 --backend $BACKEND \
        -D wealth_points=$GRID_200 -D consumption_points=$GRID_200 --repeat $REPEAT --write-repeat 1 --whole-repeat 3" ;;
  start_tiny)
    step start_tiny 40 "$SOLVE_FIGURES" \
      "'$BUILD/bin/bench_solve' $M/tiny.lua --params $M/tiny.params.lua --backend $BACKEND --repeat 5" ;;
  ps4000)
    for p in 64 32; do
      step "ps4000_f$p" 45 "$SOLVE_FIGURES" \
        "'$BUILD/bin/bench_solve' $PS -D wealth_points=$GRID_4000 -D consumption_points=$GRID_4000 \
          --backend $BACKEND --precision $p --repeat $REPEAT"
    done ;;
  fvv15000)
    step fvv15000 75 '.' "FVV_BACKENDS=$BACKEND sh '$SRC/bench/fvv.sh' '$BUILD' $FVV_NX 3" ;;
  sanitizer)
    if [ "$BACKEND" = cpu ]; then skipped sanitizer "$NEEDS_GPU"; continue; fi
    step sanitizer 150 '^(ok|FAILED|no GPU|compute-sanitizer)|^=========' \
      "MODELS='${SANITIZER_MODELS:-tiny precautionary_savings}' PRECISIONS='${SANITIZER_PRECISIONS:-64}' \
        bash '$SRC/scripts/compute-sanitizer.sh' '$BUILD'" ;;
  mahler_yum)
    if [ "$QUICK" = 1 ]; then skipped mahler_yum "QUICK: the full model takes minutes on a cpu"; continue; fi
    step mahler_yum 150 '^(==|compile|whole process|period|lcm:|\(no )|largest \|z\|' \
      "sh '$SRC/bench/mahler_yum.sh' '$BUILD' $BACKEND '$WORK/mahler_yum'" ;;
  suite)
    if [ "$QUICK" = 1 ]; then skipped suite "QUICK: the test that runs this script is part of it"; continue; fi
    step suite 600 'tests passed|tests failed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|\(Subprocess' \
      "ctest --test-dir '$BUILD' -j $(nproc) --timeout 300" ;;
  esac
done
printf '== done in %s s (deadline %s s), backend %s%s\n' "$(($(now) - START))" "$DEADLINE" "$BACKEND" \
  "$([ "$QUICK" = 1 ] && echo ', QUICK sizes')" >> "$SUMMARY"
cat "$SUMMARY"
