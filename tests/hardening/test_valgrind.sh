#!/bin/bash
# The commands under valgrind (memcheck): lcm solve and lcm simulate on
# models/tiny.lua and on models/precautionary_savings.lua, lcm simulate of
# tests/models/egm_cake.lua sharded over 2 workers, and lcmgen on
# models/mortality.lua.  An invalid read or write, a use of uninitialised
# memory (in the runtime or in the generated solver, which memcheck sees
# too) or a definite leak makes valgrind exit 99 and fails the test.
# Skipped (77) without valgrind, and for a build with AddressSanitizer,
# which cannot run under valgrind (scripts/sanitize.sh covers that build).
set -u
LCM=$1 LCMGEN=$2 SRC=$3 BIN=$4

if ! command -v valgrind > /dev/null; then echo "valgrind is not installed: skipped"; exit 77; fi
if grep -q __asan_init "$LCM"; then echo "lcm is built with AddressSanitizer, which valgrind cannot run: skipped"; exit 77; fi

work=$(mktemp -d "$BIN/valgrind-XXXXXX")
cd "$work" || exit 1
fail=0
M=$SRC/models

# A private solver cache, filled by a first run of each command without
# valgrind, so that valgrind does not have to trace the compiler.
export LCM_CACHE_DIR=$work/cache

# The cpu backend compiles the solver with -march=native, which on a CPU
# with AVX-512 emits instructions valgrind does not implement (SIGILL).
# This compiler drops -march=native and is otherwise the one lcm would use;
# being a compiler of its own, it also gets cache entries of its own.
real_cc=${LCM_CC:-${CC:-cc}}
{
  echo '#!/bin/bash'
  echo 'args=()'
  echo 'for a in "$@"; do [ "$a" = -march=native ] || args+=("$a"); done'
  printf 'exec %q "${args[@]}"\n' "$real_cc"
} > "$work/cc-portable"
chmod +x "$work/cc-portable"
export LCM_CC=$work/cc-portable

VALGRIND=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --track-origins=yes
          --suppressions="$SRC/tests/hardening/valgrind.supp")

# check NAME OUTPUTS -- COMMAND...: runs the command once plainly (into
# plain-*) and once under valgrind; both must succeed and write the outputs,
# and the outputs must agree byte for byte (same solver, same data).
check() {
  local name=$1; shift
  local outs=()
  while [ "$1" != -- ]; do outs+=("$1"); shift; done
  shift
  local start=$SECONDS
  if [ "${outs[0]}" != gen ]; then
    local plain=("$@")
    for o in "${outs[@]}"; do plain=("${plain[@]/#$o/plain-$o}"); done
    "${plain[@]}" > "$name.plain.log" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
      echo "FAILED: $name without valgrind (exit $rc):"; cat "$name.plain.log"; fail=1; return
    fi
  fi
  "${VALGRIND[@]}" "$@" > "$name.log" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAILED: $name under valgrind (exit $rc; 99: valgrind found errors):"; cat "$name.log"; fail=1
  fi
  # (a cache miss would still pass, only slowly: say so)
  if grep -q "compiled the cpu solver" "$name.log"; then
    echo "FAILED: $name compiled the solver under valgrind instead of using the cache"; fail=1
  fi
  for o in "${outs[@]}"; do
    if [ ! -s "$o" ]; then echo "FAILED: $name wrote no $o"; fail=1
    elif [ -e "plain-$o" ] && ! cmp -s "$o" "plain-$o"; then
      echo "FAILED: $name wrote another $o under valgrind than without"; fail=1
    fi
  done
  echo "$name: $((SECONDS - start)) s"
}

check solve_tiny X.h5 X.csv -- \
  "$LCM" solve "$M/tiny.lua" --params "$M/tiny.params.lua" --out X.h5 --csv X.csv
check simulate_tiny P.h5 P.csv -- \
  "$LCM" simulate "$M/tiny.lua" --params "$M/tiny.params.lua" --initial "$M/tiny.initial.csv" --out P.h5 --csv P.csv
check solve_precautionary_savings Y.h5 Y.csv -- \
  "$LCM" solve "$M/precautionary_savings.lua" --params "$M/precautionary_savings.params.lua" --out Y.h5 --csv Y.csv
check simulate_precautionary_savings Q.h5 Q.csv -- \
  "$LCM" simulate "$M/precautionary_savings.lua" --params "$M/precautionary_savings.params.lua" \
    --initial "$M/precautionary_savings.initial.csv" --out Q.h5 --csv Q.csv
# a regime solved by EGM with its type sharded over 2 workers: each makes
# the rows of its own block of the endogenous grid, from the V it solved
T=$SRC/tests/models
check simulate_egm_sharded R.csv -- \
  "$LCM" simulate "$T/egm_cake.lua" -D types=3 -D shard=true -D wealth_points=20 -D n_periods=3 --devices 2 \
    --threads 1 --params "$T/egm_cake.params.lua" --initial "$T/egm_cake_types.initial.csv" --csv R.csv
check lcmgen_mortality gen -- \
  "$LCMGEN" "$M/mortality.lua" -o gen
if [ ! -s gen/kernels.c ] || [ ! -s gen/manifest.lcm ]; then echo "FAILED: lcmgen wrote no kernels.c/manifest.lcm"; fail=1; fi

cd /
[ $fail -eq 0 ] && rm -rf "$work"
exit $fail
