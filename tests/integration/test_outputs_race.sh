#!/bin/bash
# The outputs of one command are one unit, and killed runs leave nothing
# behind (ir/tempfile.c, ir/tempname.h), on the tiny model:
#   - two writers of the same V.h5 and V.csv at once, with other parameters,
#     200 rounds: both succeed, and every pair on disk comes from one run
#     (each file is byte for byte the reference of one parameter set: lcm's
#     HDF5 files are the same bytes for the same solution);
#   - 100 writers killed with SIGKILL at random points of their run: the
#     outputs on disk stay whole (each the old or the new file), the
#     temporaries a kill leaves are removed by the next run into the same
#     names, and after the last kill one more run leaves none.
# LCM_RACE_ROUNDS and LCM_KILL_ROUNDS change the counts (to look for a rare
# failure).
. "${BASH_SOURCE%/*}/common.sh"
work_dir outputs-race
rounds=${LCM_RACE_ROUNDS:-200} kills=${LCM_KILL_ROUNDS:-100}
"$LCMGEN" "$SRC/models/tiny.lua" -o "$work/gen" > /dev/null
out=$work/out
mkdir "$out" "$work/a" "$work/b"

# solve RISK_AVERSION FOLDER: V.h5 and V.csv there; as lcm itself (exec),
# so that a background one's pid is lcm's, which a kill must reach
solve() {
  (exec "$LCM" solve "$work/gen" --params "$SRC/models/tiny.params.lua" --backend cpu --log-level warning \
    --set "risk_aversion=$1" --out "$2/V.h5" --csv "$2/V.csv")
}
solve 2 "$work/a" && solve 3 "$work/b"
check "the two parameter sets give other files" "! cmp -s '$work/a/V.csv' '$work/b/V.csv' && ! cmp -s '$work/a/V.h5' '$work/b/V.h5'"

# which run a file in $out is from: a, b, or - (neither: partial or mixed up)
from() {
  if cmp -s "$out/$1" "$work/a/$1"; then echo a
  elif cmp -s "$out/$1" "$work/b/$1"; then echo b
  else echo -; fi
}
temporaries() { find "$out" -name '*.tmp.*' | wc -l; }

mixed=0 failed=0
for ((i = 0; i < rounds; ++i)); do
  solve 2 "$out" & first=$!
  solve 3 "$out" & second=$!
  wait $first || failed=$((failed + 1))
  wait $second || failed=$((failed + 1))
  pair=$(from V.h5)$(from V.csv)
  if [ "$pair" != aa ] && [ "$pair" != bb ]; then
    mixed=$((mixed + 1))
    echo "round $i: V.h5 from $(from V.h5), V.csv from $(from V.csv)"
  fi
done
echo "$rounds rounds of two writers at once: $mixed mixed pairs, $failed failed runs"
check "every writer succeeded" "[ $failed = 0 ]"
check "every pair on disk came from one run" "[ $mixed = 0 ]"
check "no temporaries left by the writers" "[ \$(temporaries) = 0 ]"

# how long a run takes here, so that the kills fall anywhere in one
start=$(date +%s%N)
solve 2 "$out"
took=$((($(date +%s%N) - start) / 1000000))
torn=0 seen=0
for ((i = 0; i < kills; ++i)); do
  (exec "$LCM" solve "$work/gen" --params "$SRC/models/tiny.params.lua" --backend cpu --log-level warning \
    --set risk_aversion=3 --out "$out/V.h5" --csv "$out/V.csv" 2> /dev/null) & pid=$!
  sleep "$(awk -v ms=$((RANDOM % (took + took / 5 + 1))) 'BEGIN { printf "%.3f", ms / 1000 }')"
  kill -KILL $pid 2> /dev/null
  wait $pid 2> /dev/null
  seen=$((seen + $(temporaries)))
  for f in V.h5 V.csv; do
    if [ "$(from $f)" = - ]; then torn=$((torn + 1)); echo "kill $i: $f is neither run's"; fi
  done
done
left=$(temporaries)
solve 2 "$out"
echo "$kills runs killed at random in ${took} ms runs: $seen temporaries seen after the kills, $left left before the next run"
check "the outputs stayed whole through the kills" "[ $torn = 0 ]"
check "the kills left temporaries (else this test tested nothing)" "[ $seen -gt 0 ]"
check "the next run removed the temporaries of the killed ones" "[ \$(temporaries) = 0 ]"
check "and wrote its own outputs" "[ \$(from V.h5)\$(from V.csv) = aa ]"

rm -rf "$work"
exit $fail
