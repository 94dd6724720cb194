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
# OUT_DIR (new, or without a summary.txt or all.log) gets two files:
# summary.txt (each step: its command, exit status, seconds and the lines
# that hold its figures; a failed step's last lines) and all.log (every
# step's whole output).  Both are written as the steps go.  Exit status: 0
# when every step that ran exited 0 (or 77, a skip), 1 when one failed or
# was stopped at its limit (or, on cuda, nvidia-smi lists no GPU: then no
# step runs), 2 for bad arguments (nothing written).
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
#   QUICK=1   small sizes (the test's): little work; the full model of
#             mahler_yum and the suite are skipped
#   DRY_RUN=1 prints each step's command and runs nothing
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
#   durables      issue 44: Druedahl's durable model by grid search (shares,
#                 levels) and nested EGM (bench/durables.sh): solve times and
#                 Euler errors on the backend (the cpu's: solvers.md)
#   mahler_yum    Mahler & Yum at full size (bench/mahler_yum.sh): solve,
#                 V against pylcm's, simulate; issue 40: the staged solve in
#                 float64 under 50 ms on an H200 ("solved ... in"), 20,000
#                 subjects under 20 ms ("simulated 20000 ... in"), V of cuda
#                 equal to the cpu's to 1e-10 at every period (COMPARE_CPU)
#   suite         the whole test suite with the device present
set -u
unset CDPATH
die() { echo "device-acceptance.sh: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: sh scripts/device-acceptance.sh BUILD_DIR OUT_DIR"
SRC=$(cd -P -- "$(dirname -- "$0")/.." && pwd)
BUILD=$(cd -P -- "$1" 2>/dev/null && pwd) || die "no build directory '$1'"
for b in lcm bench_solve bench_simulate; do
  [ -x "$BUILD/bin/$b" ] || die "$BUILD has no bin/$b (build first)"
done
BACKEND=${BACKEND:-cuda}
case $BACKEND in cuda|cpu) ;; *) die "BACKEND must be cuda or cpu, not '$BACKEND'" ;; esac
QUICK=${QUICK:-0}
case $QUICK in 0|1) ;; *) die "QUICK must be 0 or 1, not '$QUICK'" ;; esac
DRY_RUN=${DRY_RUN:-0}
case $DRY_RUN in 0|1) ;; *) die "DRY_RUN must be 0 or 1, not '$DRY_RUN'" ;; esac
DEADLINE=${DEADLINE:-560}
# whole seconds, read as decimal (a leading 0 would make the shell read octal)
case $DEADLINE in ''|*[!0-9]*|???????*) die "DEADLINE must be whole seconds (at most 6 digits), not '$DEADLINE'" ;; esac
DEADLINE=${DEADLINE#"${DEADLINE%%[!0]*}"}
DEADLINE=${DEADLINE:-0}
SANITIZER_MODELS=${SANITIZER_MODELS:-tiny precautionary_savings}
SANITIZER_PRECISIONS=${SANITIZER_PRECISIONS:-64}
for model in $SANITIZER_MODELS; do
  [ -f "$SRC/models/$model.lua" ] || die "SANITIZER_MODELS names '$model', not a model of models/"
done
for p in $SANITIZER_PRECISIONS; do
  case $p in 64|32) ;; *) die "SANITIZER_PRECISIONS must be 64 and/or 32, not '$p'" ;; esac
done
ALL_STEPS="device gpu_tests sim_ps10 sim_ps200 start_tiny ps4000 fvv15000 sanitizer durables mahler_yum suite"
STEPS=${STEPS-$ALL_STEPS}
set -f # the names are words, not file patterns
seen=" "
for s in $STEPS; do
  case " $ALL_STEPS " in *" $s "*) ;; *) die "no step '$s' (steps: $ALL_STEPS)" ;; esac
  case $seen in *" $s "*) die "STEPS names '$s' twice" ;; esac
  seen="$seen$s "
done
[ "$seen" != " " ] || die "STEPS names no step (steps: $ALL_STEPS)"
# the steps' commands quote paths with ' (sh -c): a path holding one is refused
WORK=$(mktemp -d) || die "no temporary directory (TMPDIR)"
trap 'rm -rf "$WORK"' EXIT
case "$SRC$BUILD$WORK$2" in *\'*) die "a path holds a quote ('); use another" ;; esac
# the two files, new: a run never mixes its figures with an earlier one's
if [ -e "$2/summary.txt" ] || [ -e "$2/all.log" ]; then
  die "'$2' holds a summary.txt or all.log already; name a new or empty directory"
fi
if [ "$DRY_RUN" = 1 ]; then
  OUT=$WORK
else
  mkdir -p -- "$2" 2>/dev/null || die "cannot make the directory '$2'"
  OUT=$(cd -P -- "$2" && pwd)
fi
SUMMARY=$OUT/summary.txt
LOG=$OUT/all.log
: > "$SUMMARY"
: > "$LOG"
export LCM_CACHE_DIR="$WORK/cache" # the steps share compiled solvers, and nothing of earlier runs

now() { date +%s; }
START=$(now)
M=$SRC/models
PS="'$M/precautionary_savings.lua' --params '$M/precautionary_savings.params.lua'"
PS_SIM="$PS --initial '$M/precautionary_savings.initial.csv'"

# the sizes: the issues' cases, or QUICK's
if [ "$QUICK" = 1 ]; then
  SUBJ_10=2000 SUBJ_200=1000 GRID_200=20 GRID_4000=200 FVV_NX=100 REPEAT=2
  DURABLES="-D n_periods=3 -D a_points=6 -D p_points=4 -D n_points=4 -D psi_points=3 -D xi_points=3 -D d_points=5 \
    -D c_points=20 -D savings_points=20"
else
  SUBJ_10=1000000 SUBJ_200=500000 GRID_200=200 GRID_4000=4000 FVV_NX=15000 REPEAT=5
  DURABLES="-D a_points=20 -D p_points=10 -D n_points=10 -D d_points=20 -D c_points=100"
fi

failed=0
# step NAME CAP PATTERN COMMAND: runs the shell command (sh -c) under
# min(CAP, what is left of the deadline) seconds; its output goes to all.log
# and the lines matching the extended regex PATTERN to the summary (and a
# failed step's last lines)
step() {
  name=$1 cap=$2 pattern=$3 cmd=$4
  # the caps are a GPU's; QUICK on a cpu (the test) may run on a loaded one
  [ "$QUICK" = 1 ] && [ "$BACKEND" = cpu ] && cap=$((cap * 4))
  shown=$(printf '%s\n' "$cmd" | tr -s ' ') # the command on one line, for reading
  if [ "$DRY_RUN" = 1 ]; then
    printf '== %s: would run (at most %s s): %s\n' "$name" "$cap" "$shown"
    return
  fi
  left=$((DEADLINE - ($(now) - START)))
  limit=$cap
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 10 ]; then
    skipped "$name" "$left s of the deadline left"
    return
  fi
  t0=$(now)
  printf '\n== %s (limit %s s): %s\n' "$name" "$limit" "$shown" >> "$LOG"
  before=$(wc -l < "$LOG")
  # straight into the log: a run stopped from outside keeps what the step
  # printed.  timeout leads a process group of its own; whatever of the
  # group outlives it (a child that ignored the TERM) is killed after it
  timeout -k 5 "$limit" sh -c "$cmd" >> "$LOG" 2>&1 &
  tpid=$!
  wait "$tpid"
  rc=$?
  kill -s KILL -- "-$tpid" 2>/dev/null
  tail -n "+$((before + 1))" "$LOG" > "$WORK/step.log"
  case $rc in
  0) how="exit 0" ;;
  77) how="skipped (exit 77)" ;;
  124|137) how="stopped at its limit of $limit s" failed=1 ;;
  *) how="exit $rc" failed=1 ;;
  esac
  printf '== %s: %s, %s s: %s\n' "$name" "$how" "$(($(now) - t0))" "$shown" >> "$SUMMARY"
  grep -E "$pattern" "$WORK/step.log" | sed 's/^/  /' >> "$SUMMARY"
  if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
    echo "  (its last lines:)" >> "$SUMMARY"
    tail -n 5 "$WORK/step.log" | sed 's/^/  | /' >> "$SUMMARY"
  fi
}

# skipped NAME WHY: a step that does not run here
skipped() {
  printf '== %s: skipped (%s)\n' "$1" "$2" >> "$SUMMARY"
}
NEEDS_GPU="BACKEND=cpu: it needs a GPU"

SIM_FIGURES='^(model|backend|subjects|simulate|  its parts|throughput|peak|whole process|write)'
SOLVE_FIGURES='^(model|backend|work|compile|solver|whole process|bare CUDA|solve |throughput|peak|  peaks|  kernel |  lcm_k)'
# ctest: the count, and each test that failed, timed out or did not run
CTEST_FIGURES='tests passed|tests failed|\*\*\*|\((Failed|Skipped|Timeout|SEGFAULT|Subprocess|Not Run)'

# without a GPU the cuda steps would only fail one after another: stop first
if [ "$BACKEND" = cuda ] && [ "$DRY_RUN" = 0 ] && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "== stopped: nvidia-smi lists no GPU, so no cuda step can run (BACKEND=cpu runs the steps on the cpu)" >> "$SUMMARY"
  cat "$SUMMARY"
  exit 1
fi

for s in $STEPS; do
  case $s in
  device)
    step device 30 '.' "nvidia-smi -L && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo 'no GPU (nvidia-smi)'; \
      (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | tail -2; echo \"\$(nproc) cores, \$(uname -m)\"" ;;
  gpu_tests)
    if [ "$BACKEND" = cpu ]; then skipped gpu_tests "$NEEDS_GPU"; continue; fi
    step gpu_tests 150 "$CTEST_FIGURES" "ctest --test-dir '$BUILD' -L gpu --output-on-failure" ;;
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
      "'$BUILD/bin/bench_solve' '$M/tiny.lua' --params '$M/tiny.params.lua' --backend $BACKEND --repeat 5" ;;
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
      "MODELS='$SANITIZER_MODELS' PRECISIONS='$SANITIZER_PRECISIONS' bash '$SRC/scripts/compute-sanitizer.sh' '$BUILD'" ;;
  durables)
    step durables 150 '^(==|solver|vfi|negm)' "BACKEND=$BACKEND sh '$SRC/bench/durables.sh' '$BUILD' 3 $DURABLES" ;;
  mahler_yum)
    if [ "$QUICK" = 1 ]; then skipped mahler_yum "QUICK: the full model takes minutes on a cpu"; continue; fi
    step mahler_yum 240 '^(==|compile|whole process|period|lcm:|\(no )|largest \|z\|' \
      "COMPARE_CPU=1 sh '$SRC/bench/mahler_yum.sh' '$BUILD' $BACKEND '$WORK/mahler_yum'" ;;
  suite)
    if [ "$QUICK" = 1 ]; then skipped suite "QUICK: the test that runs this script is part of it"; continue; fi
    step suite 600 "$CTEST_FIGURES" "ctest --test-dir '$BUILD' -j $(nproc) --timeout 300" ;;
  esac
done
[ "$DRY_RUN" = 1 ] && exit 0
printf '== done in %s s (deadline %s s), backend %s%s%s\n' "$(($(now) - START))" "$DEADLINE" "$BACKEND" \
  "$([ "$QUICK" = 1 ] && echo ', QUICK sizes')" "$([ $failed = 1 ] && echo ': a step failed')" >> "$SUMMARY"
cat "$SUMMARY"
exit $failed
