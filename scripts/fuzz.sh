#!/bin/sh
# Builds the libFuzzer harnesses (tests/fuzz) with clang into build-fuzz and
# runs each over its corpus for a bounded budget:
#   sh scripts/fuzz.sh                      # model, params, set, initial, solution: a fixed number
#                                           # of inputs each (about a minute here), seed 1
#   LCM_FUZZ_SECONDS=600 sh scripts/fuzz.sh params   # exploration: 600 s, a fresh seed each run
#   LCM_FUZZ_SECONDS=0 sh scripts/fuzz.sh   # only replay the corpora
#   sh scripts/fuzz.sh solution_file        # raw HDF5 bytes: stops at HDF5 1.10's own bugs
# The default budget is a count of inputs with a fixed seed (LCM_FUZZ_SEED,
# default 1), so that the test suite gives the same verdict on every run of
# the same commit (a timed run explores a different part on a faster or a
# busier machine); exploring is what LCM_FUZZ_SECONDS is for, and what it
# finds goes into tests/fuzz/corpus once fixed.
# The corpus is tests/fuzz/corpus/<harness> plus, as seeds, the project's
# model and params files (models/, tests/models/, tests/bad_input/models/),
# and for solution_file the files `lcm solve` writes for three bundled
# models (lcm is built here too) and the format-2 files of tests/fixtures.
# New inputs go to build-fuzz/fuzz/<harness>/corpus (the corpus in the
# repository is only read).  A crash, sanitizer report, leak, timeout or
# running out of memory leaves its input in build-fuzz/fuzz/<harness>/ and
# makes the script exit 1.  Without clang and libFuzzer it says so and exits 0.
set -eu
cd "$(dirname "$0")/.."
seconds=${LCM_FUZZ_SECONDS:-}
seed=${LCM_FUZZ_SEED:-1}
build=${LCM_FUZZ_BUILD_DIR:-build-fuzz}
cc=${LCM_FUZZ_CC:-clang}
harnesses=${*:-model params set initial solution}

case $seconds in *[!0-9]*) echo "LCM_FUZZ_SECONDS must be a whole number of seconds, got '$seconds'"; exit 2 ;; esac
case $seed in '' | *[!0-9]*) echo "LCM_FUZZ_SEED must be a whole number, got '$seed'"; exit 2 ;; esac
for h in $harnesses; do
  case $h in
    model | params | set | initial | solution | solution_file) ;;
    *) echo "unknown harness '$h' (model, params, set, initial, solution, solution_file)"; exit 2 ;;
  esac
done

skip() { echo "fuzzing skipped: $1"; exit 0; }

# Can clang link a fuzzer with the sanitizers (libclang-rt-14-dev on
# Debian), and build OpenMP code (libomp-dev), as the project needs?
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n' \
  > "$probe/fuzz.c"
printf 'int main(void) { return 0; }\n' > "$probe/omp.c"
command -v "$cc" > /dev/null 2>&1 || skip "clang with libFuzzer is not installed"
"$cc" -fsanitize=fuzzer,address,undefined "$probe/fuzz.c" -o "$probe/fuzz" > /dev/null 2>&1 ||
  skip "clang with libFuzzer is not installed (clang cannot link -fsanitize=fuzzer: libclang-rt-14-dev?)"
"$cc" -fopenmp "$probe/omp.c" -o "$probe/omp" > /dev/null 2>&1 ||
  skip "clang cannot build OpenMP code (libomp-dev is not installed)"

targets=
for h in $harnesses; do targets="$targets fuzz_$h"; done
# solution_file's seeds are written by lcm itself
case " $harnesses " in *" solution_file "*) targets="$targets lcm_cli" ;; esac
mkdir -p "$build"
echo "building$targets in $build with $cc (log: $build/fuzz-build.log)"
# shellcheck disable=SC2086 # one word per target
if ! { CC=$cc cmake -S . -B "$build" -DLCM_FUZZ=ON -DLCM_ASSERTS=ON -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
  cmake --build "$build" -j "$(nproc)" --target $targets; } > "$build/fuzz-build.log" 2>&1; then
  tail -n 40 "$build/fuzz-build.log"
  echo "fuzzing: the build failed"
  exit 1
fi

# solution_file's seeds: files written by `lcm solve` run here (so that
# their source hash names the models fuzz_solution_file generates, as it
# generates them from models/X.lua typed in the source tree), in both
# precisions, and the format-2 files users may still have.  lcm is built
# with the sanitizers, whose leak report is not this harness's business;
# its solvers are cached in the build directory.
seed_solutions() {
  for m in tiny mortality precautionary_savings; do
    for p in 64 32; do
      if ! ASAN_OPTIONS=detect_leaks=0 LCM_CACHE_DIR="$build/fuzz/cache" "$build/bin/lcm" solve "models/$m.lua" \
        --params "models/$m.params.lua" --backend cpu --precision $p --log-level warning --out "$1/$m.$p.h5"; then
        echo "fuzz_solution_file: lcm solve models/$m.lua failed: no seeds"
        return 1
      fi
    done
  done
  for f in tests/fixtures/solution-v2/*.h5; do cp "$f" "$1/v2_$(basename "$f")"; done
}

# A failing harness does not stop the others: every finding is reported.
status=0
for h in $harnesses; do
  case $h in
    # runs: the default budget, about a minute of each harness on this 2-core machine
    model) max_len=16384 dict=tests/fuzz/dict/lua.dict runs=5000 ;;
    params) max_len=4096 dict=tests/fuzz/dict/lua.dict runs=50000 ;;
    set) max_len=1024 dict=tests/fuzz/dict/lua.dict runs=80000 ;;
    initial) max_len=4096 dict=tests/fuzz/dict/csv.dict runs=800000 ;;
    solution) max_len=512 dict= runs=4000 ;; # edits of files HDF5 writes: no tokens
    solution_file) max_len=131072 dict=tests/fuzz/dict/hdf5.dict runs=20000 ;;
  esac
  work=$build/fuzz/$h
  mkdir -p "$work/corpus"
  # seeds beside the repository's corpus: the project's own model and params
  # files, gathered here rather than kept as copies in tests/fuzz/corpus
  rm -rf "$work/seeds" && mkdir -p "$work/seeds"
  for f in models/*.lua tests/models/*.lua tests/bad_input/models/*.lua; do
    case $h:$f in
      model:*.params.lua | model:*/params.lua) ;;
      model:*) cp "$f" "$work/seeds/$(echo "$f" | tr / _)" ;;
      params:*.params.lua | params:*/params.lua) cp "$f" "$work/seeds/$(echo "$f" | tr / _)" ;;
    esac
  done
  if [ "$h" = solution_file ] && ! seed_solutions "$work/seeds"; then
    status=1
    continue
  fi
  if [ "$seconds" = 0 ]; then
    bound=-runs=0
    echo "fuzz_$h: replaying tests/fuzz/corpus/$h (log: $work/fuzz.log)"
  elif [ -n "$seconds" ]; then
    bound=-max_total_time=$seconds
    echo "fuzz_$h: $seconds s over tests/fuzz/corpus/$h (log: $work/fuzz.log)"
  else
    bound="-runs=$runs -seed=$seed"
    echo "fuzz_$h: $runs inputs, seed $seed, over tests/fuzz/corpus/$h (log: $work/fuzz.log)"
  fi
  # stdout closed: a model's print() would flood the log
  # shellcheck disable=SC2086 # $bound is one or two options; no dictionary: no word
  if "$build/bin/fuzz_$h" $bound -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" ${dict:+-dict=$dict} \
    -close_fd_mask=1 -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "tests/fuzz/corpus/$h" "$work/seeds" \
    > "$work/fuzz.log" 2>&1; then
    grep -E 'DONE|^stat::(number_of_executed_units|average_exec_per_sec)' "$work/fuzz.log" | sed 's/^/  /'
  else
    status=1
    tail -n 80 "$work/fuzz.log"
    echo "fuzz_$h FAILED: its input is in $work/ (crash-*, leak-*, timeout-*, oom-*);" \
      "replay it with $build/bin/fuzz_$h FILE"
  fi
done
exit $status
