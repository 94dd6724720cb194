#!/bin/bash
# scripts/device-acceptance.sh, the prepared run for a session lent a GPU,
# kept working between such sessions: every step on the cpu backend at
# QUICK sizes.  Each step that runs exits 0 and prints its figures; the
# GPU-only steps say they are skipped; FVV's V equals the hand-written
# program's.  A dry run shows the cuda commands, naming files that exist;
# on cuda without a GPU no step runs; a step at its limit is stopped with
# what it started and fails the run; a step past the deadline is skipped,
# not run; a bad STEPS, a path with a quote or an output directory of an
# earlier run is refused before anything runs.
. "${BASH_SOURCE%/*}/common.sh"
unset STEPS DEADLINE BACKEND QUICK DRY_RUN SANITIZER_MODELS SANITIZER_PRECISIONS # the script's own knobs
BUILD=$(dirname "$(dirname "$LCM")")
work=$(mktemp -d "$BIN/device-acceptance-XXXXXX")

BACKEND=cpu QUICK=1 sh "$SRC/scripts/device-acceptance.sh" "$BUILD" "$work/run" > "$work/out.txt" 2>&1
rc=$?
cat "$work/out.txt"
S=$work/run/summary.txt
check "the run exits 0" '[ $rc -eq 0 ]'
check "it keeps the whole log" '[ -s "$work/run/all.log" ]'
for s in device sim_ps10_f64 sim_ps10_f32 sim_ps200 start_tiny ps4000_f64 ps4000_f32 fvv15000; do
  check "step $s ran and exited 0" 'grep -q "^== $s: exit 0, " "$S"'
done
for s in gpu_tests sanitizer; do
  check "step $s is skipped on the cpu" 'grep -q "^== $s: skipped (BACKEND=cpu" "$S"'
done
# the figures each step is there for, in the summary
figure() { sed -n "/^== $1:/,/^== /p" "$S" | grep -qE "$2"; }
check "sim_ps10_f64: the simulation's median" 'figure sim_ps10_f64 "^  simulate +[0-9.]+ s \(lcm_simulate"'
check "sim_ps10_f32: in float32" 'figure sim_ps10_f32 "^  backend +cpu, float32"'
check "sim_ps10_f64: peak host memory and the panel's size" 'figure sim_ps10_f64 "^  peak host memory +[0-9.]+ MiB \(the panel"'
check "sim_ps200: the whole process" 'figure sim_ps200 "^  whole process +[0-9.]+ s"'
check "start_tiny: the whole process" 'figure start_tiny "^  whole process +[0-9.]+ s"'
check "ps4000_f64: pairs per second" 'figure ps4000_f64 "^  throughput +[0-9.e+]+ state-action pairs / s"'
check "ps4000_f64: a roofline row per kernel" 'figure ps4000_f64 "^    lcm_k0_alive "'
check "fvv15000: the ratio to the hand-written program" 'figure fvv15000 "parameters fixed +solve median [0-9.]+ s: [0-9.]+x the hand-written"'
worst=$(sed -n 's/.*V, cpu: [0-9]* values, largest |lcm - hand-written| \([0-9.e+-]*\).*/\1/p' "$S")
check "fvv15000: V as the hand-written program's (largest difference '$worst')" \
  '[ -n "$worst" ] && awk -v w="$worst" "BEGIN { exit !(w <= 1e-12) }"'
check "the summary ends with the run's time" 'tail -1 "$S" | grep -q "^== done in [0-9]* s (deadline 560 s), backend cpu, QUICK sizes"'

# the GPU's commands (DRY_RUN prints them, runs nothing, writes nothing):
# every step there, and every script, program and model they name exists
DRY_RUN=1 sh "$SRC/scripts/device-acceptance.sh" "$BUILD" "$work/dry" > "$work/dry.txt" 2>&1
rc=$?
check "a dry run exits 0 and writes nothing" '[ $rc -eq 0 ] && [ ! -e "$work/dry" ]'
for s in device gpu_tests sim_ps10_f64 sim_ps10_f32 sim_ps200 start_tiny ps4000_f64 ps4000_f32 fvv15000 sanitizer \
  mahler_yum suite; do
  check "the dry run shows step $s" 'grep -q "^== $s: would run" "$work/dry.txt"'
done
check "on cuda" 'grep -q "^== sim_ps10_f64: would run.*--backend cuda --precision 64" "$work/dry.txt" &&
  grep -q "^== fvv15000: would run.*FVV_BACKENDS=cuda .* 15000 3" "$work/dry.txt"'
missing=$(grep -o "'/[^']*'" "$work/dry.txt" | tr -d "'" | sort -u | while read -r f; do
  case $f in */mahler_yum) continue ;; esac # the output directory the step makes
  [ -e "$f" ] || echo "$f"; done)
check "every path the commands name exists (missing: $missing)" '[ -z "$missing" ]'

# on cuda without a GPU (this machine, unless it has one): no step runs
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  STEPS="device sim_ps10" sh "$SRC/scripts/device-acceptance.sh" "$BUILD" "$work/nogpu" > /dev/null 2>&1
  rc=$?
  check "on cuda without a GPU the run stops before its steps (exit 1), saying why" \
    '[ $rc -eq 1 ] && grep -q "^== stopped: nvidia-smi lists no GPU" "$work/nogpu/summary.txt" &&
     ! grep -q "^== device" "$work/nogpu/summary.txt"'
fi

# a step past its limit is stopped, with whatever it started (a stub that
# ignores TERM), and the run says so and exits 1
stub=$work/stub
mkdir -p "$stub/bin"
printf '#!/bin/sh\nexit 0\n' > "$stub/bin/lcm"
cp "$stub/bin/lcm" "$stub/bin/bench_simulate"
printf '#!/bin/sh\necho started\ntrap "" TERM\nsleep 30\necho late >> "%s/late"\n' "$work" > "$stub/bin/bench_solve"
chmod +x "$stub/bin/"*
BACKEND=cpu DEADLINE=13 STEPS=start_tiny sh "$SRC/scripts/device-acceptance.sh" "$stub" "$work/stopped" > /dev/null 2>&1
rc=$?
check "a step at its limit fails the run (exit 1)" '[ $rc -eq 1 ]'
check "the summary says it was stopped, with its last lines" \
  'grep -Eq "^== start_tiny: stopped at its limit of 1[0-3] s" "$work/stopped/summary.txt" &&
   grep -q "^  | started" "$work/stopped/summary.txt"'
sleep 1
check "nothing of the stopped step runs on" '! pgrep -f "$stub/bin/bench_solve" > /dev/null'

# past the deadline: skipped, not run
BACKEND=cpu QUICK=1 DEADLINE=5 STEPS="device sim_ps10" sh "$SRC/scripts/device-acceptance.sh" "$BUILD" "$work/late" \
  > /dev/null 2>&1
check "a step with too little of the deadline left is skipped" \
  'grep -q "^== sim_ps10_f64: skipped ([0-9-]* s of the deadline left)" "$work/late/summary.txt"'

# refused before anything runs: an unknown step, an earlier run's directory
BACKEND=cpu STEPS="device warp_speed" sh "$SRC/scripts/device-acceptance.sh" "$BUILD" "$work/bad" > "$work/bad.txt" 2>&1
rc=$?
check "an unknown step is refused (exit 2), naming it" '[ $rc -eq 2 ] && grep -q "no step .warp_speed." "$work/bad.txt"'
check "and nothing is written" '[ ! -e "$work/bad" ]'
BACKEND=cpu sh "$SRC/scripts/device-acceptance.sh" "$BUILD" "$work/it's" > "$work/quote.txt" 2>&1
rc=$?
check "a path with a quote, which the steps' commands cannot hold, is refused (exit 2)" \
  '[ $rc -eq 2 ] && grep -q "holds a quote" "$work/quote.txt" && [ ! -e "$work/it'"'"'s" ]'
cp "$S" "$work/kept.txt"
BACKEND=cpu QUICK=1 STEPS=device sh "$SRC/scripts/device-acceptance.sh" "$BUILD" "$work/run" > "$work/again.txt" 2>&1
rc=$?
check "a directory holding an earlier run is refused (exit 2)" '[ $rc -eq 2 ] && grep -q "name a new or empty directory" "$work/again.txt"'
check "and the earlier summary is kept" 'cmp -s "$S" "$work/kept.txt"'

rm -rf "$work"
exit $fail
