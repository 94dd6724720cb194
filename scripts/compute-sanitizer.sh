#!/bin/bash
# Runs NVIDIA compute-sanitizer's four tools (memcheck, racecheck,
# initcheck, synccheck) over `lcm run` of every bundled model on the cuda
# backend: the solve and the simulation, float64 and float32.  Any reported
# error fails the script, CUDA API errors included (memcheck reports the
# errors of the driver calls lcm makes, e.g. a cuModuleGetFunction that
# returns NOT_FOUND).  Without a GPU (or without compute-sanitizer) it
# says so and exits 77, the skip code of ctest.
#
#   bash scripts/compute-sanitizer.sh [BUILD_DIR]    (default: build)
#
# MODELS="tiny mortality" and PRECISIONS="64" narrow the runs (default:
# every bundled model with a params file and initial conditions; 64 32).
#
# The solvers are compiled once beforehand, without the sanitizer (NVRTC is
# host code; this keeps the sanitized runs short), into a private cache.
# Logs go to BUILD_DIR/compute-sanitizer/<model>.<tool>.<precision>.log.
set -u
cd "$(dirname "$0")/.."
B=${1:-build}
LCM=$B/bin/lcm
[ -x "$LCM" ] || { echo "no $LCM: build first (sh scripts/build.sh)"; exit 2; }

CS=$(command -v compute-sanitizer || true)
for d in "${CUDA_HOME:-}" /usr/local/cuda /opt/cuda; do
  [ -z "$CS" ] && [ -n "$d" ] && [ -x "$d/bin/compute-sanitizer" ] && CS=$d/bin/compute-sanitizer
done
[ -n "$CS" ] || { echo "compute-sanitizer not found (CUDA toolkit): skipped"; exit 77; }
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "no GPU: skipped"; exit 77
fi

out=$B/compute-sanitizer
case $out in /*) ;; *) out=$(pwd)/$out ;; esac # BUILD_DIR may be absolute
rm -rf "$out"
mkdir -p "$out"
export LCM_CACHE_DIR=$out/cache

fail=0
for model in models/*.lua; do
  name=$(basename "$model" .lua)
  [ -f "models/$name.params.lua" ] && [ -f "models/$name.initial.csv" ] || continue
  case " ${MODELS:-$name} " in *" $name "*) ;; *) continue ;; esac
  for precision in ${PRECISIONS:-64 32}; do
    run=("$LCM" run "$model" --backend cuda --precision "$precision" --seed 1 --log-level warning
         --out-dir "$out/results-$name-$precision")
    # compile (and check that the plain run works) first
    if ! "${run[@]}" > "$out/$name.plain.$precision.log" 2>&1; then
      echo "FAILED: $name float$precision without the sanitizer:"; cat "$out/$name.plain.$precision.log"
      fail=1; continue
    fi
    for tool in memcheck racecheck initcheck synccheck; do
      extra=()
      case $tool in
        # leaks of device memory at exit; API errors of every explicit call
        memcheck) extra=(--leak-check full --report-api-errors explicit) ;;
        # every hazard, not only the analysed summary
        racecheck) extra=(--racecheck-report all) ;;
      esac
      log=$out/$name.$tool.$precision.log
      "$CS" --tool "$tool" "${extra[@]}" --error-exitcode 99 --print-limit 100 \
        "${run[@]}" > "$log" 2>&1
      rc=$?
      # the summary line, in case a tool's error count does not reach the exit
      # code (racecheck's: "RACECHECK SUMMARY: 0 hazards displayed (0 errors, ...")
      if [ $rc -ne 0 ] || ! grep -qE 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors' "$log"; then
        echo "FAILED: $name float$precision, $tool (exit $rc):"
        grep -E '^=========' "$log" | head -40
        fail=1
      else
        echo "ok: $name float$precision, $tool"
      fi
    done
  done
done
exit $fail
