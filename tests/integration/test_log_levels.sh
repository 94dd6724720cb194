#!/bin/bash
# The checks by --checks (the solver's policy), at every log level, on
# models with a planted failure: raise (the default) raises at the first
# failing period and writes nothing, warn warns and completes, off checks
# nothing, whatever --log-level says (it only says what is printed: at off
# not even warn's warnings; progress adds a line per period); checks of the
# warning kind (+inf, no feasible action) only ever warn.  Then snapshots:
# what --log-path writes, that --log-keep keeps the newest, and that a
# snapshot reproduces the failure on its own.
. "${BASH_SOURCE%/*}/common.sh"
M=$SRC/tests/bad_input/models

work=$(mktemp -d "$BIN/log-levels-XXXXXX")

# name | kind (error: raises at debug; warning: never raises) | message | arguments
cases=(
  "nan|error|V is NaN (a feasible action has a NaN Q|$M/nan_log.lua"
  "regime_probs|error|the regime transition probabilities are negative or do not sum to 1|$M/regime_probs_09.lua --set discount_factor=0.95"
  "inactive|error|a regime that is inactive in the next period has a positive probability|$M/enter_inactive.lua --set discount_factor=0.95 --set stay=0.2"
  "code|error|a discrete state a value that is not one of its codes|$M/state_code_out_of_range.lua --set discount_factor=0.95"
  "markov|error|Markov state transition probabilities are negative or do not sum to 1|$M/health.lua --params $M/health.params.lua --set health_transition={{0.7,0.2},{0.1,0.9}}"
  "inf|warning|V is +inf|$M/inf_utility.lua"
  "infeasible|warning|no action is feasible (V = -inf)|$M/infeasible_state.lua"
)

for c in "${cases[@]}"; do
  IFS='|' read -r name kind msg args <<< "$c"
  for checks in default raise warn off; do
    levels="info warning off"
    [ $checks = default ] && levels="info debug progress warning off"
    for level in $levels; do
      out=$work/$name-$checks-$level
      flag="--log-level $level"
      [ $level = info ] && flag="" # the default
      [ $checks != default ] && flag="$flag --checks $checks"
      "$LCM" solve $args $flag --out "$out.h5" --csv "$out.csv" > /dev/null 2> "$out.err"
      rc=$?
      at="$name, checks $checks, at $level"
      if [ $checks = off ]; then
        check "$at: exit 0" "[ $rc -eq 0 ]"
        check "$at: no check reported" "! grep -q 'warning: regime\|error: regime' '$out.err'"
        check "$at: outputs written" "[ -s '$out.h5' ] && [ -s '$out.csv' ]"
      elif [ $checks != warn ] && [ $kind = error ]; then
        check "$at: exit 7" "[ $rc -eq 7 ]"
        check "$at: error reported" "grep -qF 'error: regime' '$out.err' && grep -qF -- '$msg' '$out.err'"
        check "$at: nothing written" "[ ! -e '$out.h5' ] && [ ! -e '$out.csv' ]"
      else
        check "$at: exit 0" "[ $rc -eq 0 ]"
        if [ $level = off ]; then
          check "$at: silent" "[ ! -s '$out.err' ]"
        else
          check "$at: warned" "grep -F 'warning: regime' '$out.err' | grep -qF -- '$msg'"
        fi
        check "$at: outputs written" "[ -s '$out.h5' ] && [ -s '$out.csv' ]"
      fi
      # a line per period solved at progress and debug (raise stops the
      # solve: at debug only the periods before it)
      per_period=$(grep -c "solving '.*': period" "$out.err")
      if [ $level = progress ] || { [ $level = debug ] && [ $kind = warning ]; }; then
        check "$at: a line per period" "[ $per_period -ge 2 ]"
      elif [ $level != debug ]; then
        check "$at: no per-period lines" "[ $per_period -eq 0 ]"
      fi
    done
  done
done

# info, the default, says in one line what was done and where the results went
"$LCM" solve "$SRC/models/tiny.lua" --params "$SRC/models/tiny.params.lua" --csv "$work/tiny-i.csv" --out "$work/tiny-i.h5" 2> "$work/tiny-i.err"
check "info prints one line" "[ \$(wc -l < '$work/tiny-i.err') -eq 1 ]"
check "info says what was done and where it went" "grep -q \"^lcm: solved model 'tiny' on .* s: wrote $work/tiny-i.h5, $work/tiny-i.csv\$\" '$work/tiny-i.err'"

# debug adds V's range per period and regime; the others do not
"$LCM" solve "$SRC/models/tiny.lua" --params "$SRC/models/tiny.params.lua" --csv "$work/tiny.csv" --log-level debug 2> "$work/tiny.err"
check "debug prints V statistics" "grep -q \"period 0 (age 0), regime 'alive': V min .* max .* mean .* over 10 states\" '$work/tiny.err'"
"$LCM" solve "$SRC/models/tiny.lua" --params "$SRC/models/tiny.params.lua" --csv "$work/tiny.csv" --log-level progress 2> "$work/tiny-p.err"
check "progress prints no V statistics" "! grep -q 'V min' '$work/tiny-p.err'"

# the simulation: a subject starting at negative wealth has a NaN V
printf 'regime,age,wealth\nalive,0,5\nalive,0,-5\n' > "$work/i.csv"
sim="simulate $M/sim_nan.lua --set discount_factor=0.9 --initial $work/i.csv"
"$LCM" $sim --csv "$work/s-debug.csv" 2> "$work/s-debug.err"
check "simulation at info (checks raise): exit 7" "[ $? -eq 7 ]"
check "simulation at debug: error names the subject" "grep -qF \"error: simulation: subject 1, period 0 (age 0), regime 'alive' at wealth=-5: V is NaN\" '$work/s-debug.err'"
check "simulation at debug: explained" "grep -qF \"the first NaN is function 'utility'\" '$work/s-debug.err'"
"$LCM" $sim --csv "$work/s-warning.csv" --log-level warning 2> "$work/s-warning.err"
check "simulation at warning: still an error (exit 7)" "[ $? -eq 7 ]"
"$LCM" $sim --csv "$work/s-warn.csv" --checks warn --log-level warning 2> "$work/s-warn.err"
check "simulation, checks warn: exit 0" "[ $? -eq 0 ]"
check "simulation, checks warn: warned" "grep -qF 'warning: simulation: subject 1' '$work/s-warn.err'"
check "simulation, checks warn: panel written" "[ \$(wc -l < '$work/s-warn.csv') -eq 5 ]"
"$LCM" $sim --csv "$work/s-progress.csv" --checks warn --log-level progress 2> "$work/s-progress.err"
check "simulation at progress: a line per period" "[ \$(grep -c \"simulating 'sim_nan': period\" '$work/s-progress.err') -eq 3 ]"
"$LCM" $sim --csv "$work/s-off.csv" --log-level off 2> "$work/s-off.err"
check "simulation at level off: still an error (exit 7)" "[ $? -eq 7 ]"
"$LCM" $sim --csv "$work/s-off.csv" --checks warn --log-level off 2> "$work/s-off.err"
check "simulation, checks warn at level off: exit 0, silent" "[ $? -eq 0 ] && [ ! -s '$work/s-off.err' ]"
"$LCM" $sim --csv "$work/s-checks-off.csv" --checks off 2> "$work/s-checks-off.err"
check "simulation, checks off: exit 0, no check reported" "[ $? -eq 0 ] && ! grep -q 'simulation: subject' '$work/s-checks-off.err'"
"$LCM" $sim --csv "$work/s-bad.csv" --checks loud 2> "$work/s-bad.err"
check "--checks loud: a usage error" "[ $? -eq 2 ] && grep -qF -- '--checks must be raise, warn or off' '$work/s-bad.err'"

# snapshots: three failures keep the newest two
snaps=$work/snapshots
for i in 1 2 3; do
  "$LCM" solve "$M/regime_probs_09.lua" --set discount_factor=0.95 --csv "$work/x.csv" --log-path "$snaps" --log-keep 2 \
    2> "$work/snap$i.err"
done
check "a snapshot is announced" "grep -q 'snapshot of the failure written to' '$work/snap1.err'"
check "--log-keep 2 keeps two snapshots" "[ \$(ls '$snaps' | wc -l) -eq 2 ]"
last=$snaps/$(ls "$snaps" | tail -1)
check "the newest is kept" "grep -qF \"$last\" '$work/snap3.err'"
for f in report.txt params.lua V.h5 model/manifest.lcm model/kernels.c; do
  check "snapshot has $f" "[ -s '$last/$f' ]"
done
check "snapshot report holds the error" "grep -qF 'next regime probabilities alive=0.6, dead=0.3 (sum 0.9)' '$last/report.txt'"
(cd "$last" && "$LCM" solve model --params params.lua --csv "$work/again.csv" 2> "$work/again.err")
check "a snapshot reproduces the failure" "[ $? -eq 7 ]"
check "a snapshot reproduces the same message" "grep -qF 'the regime transition probabilities are negative or do not sum to 1' '$work/again.err'"
"$LCM" solve "$M/regime_probs_09.lua" --set discount_factor=0.95 --csv "$work/x.csv" --log-path "$work/none" --checks off
check "no snapshot when the checks are off" "[ ! -e '$work/none' ] || [ -z \"\$(ls '$work/none')\" ]"
"$LCM" $sim --csv "$work/s.csv" --log-path "$work/simsnaps" 2> /dev/null
check "a failed simulation writes a snapshot" "[ \$(ls '$work/simsnaps' | wc -l) -eq 1 ]"
check "its report names the subject" "grep -qF 'simulation: subject 1' '$work'/simsnaps/*/report.txt"

# links planted in the snapshot folder under lcm's names: pruning removes
# nothing through them, and a new snapshot never goes into one
mkdir -p "$work/victim/model" "$work/planted"
for f in report.txt params.lua V.h5 model/manifest.lcm model/kernels.c; do echo keep > "$work/victim/$f"; done
ln -s "$work/victim" "$work/planted/lcm-snapshot-00000000-000000-0000000001-0000"
ln -s "$work/victim" "$work/planted/lcm-snapshot-99991231-235959-0000000001-0000"
"$LCM" solve "$M/regime_probs_09.lua" --set discount_factor=0.95 --csv "$work/x.csv" --log-path "$work/planted" \
  --log-keep 1 2> "$work/planted.err"
check "a planted link leads nowhere" "(for f in report.txt params.lua V.h5 model/manifest.lcm model/kernels.c; do grep -qx keep \"$work/victim/\$f\" || exit 1; done)"
check "the snapshot just written stays, whatever sorts after it" "[ -s \"\$(sed -n 's/.*snapshot of the failure written to //p' '$work/planted.err')/report.txt\" ]"

rm -rf "$work"
exit $fail
