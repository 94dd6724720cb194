#!/bin/bash
# lcm simulate and lcm run from the command line: lcm run works on every
# bundled model (each has its params and initial conditions; see below), the panel CSV
# is byte-identical for every --subject-batch-size and when simulating from
# the saved solution, and the HDF5 panel holds the CSV's columns.
. "${BASH_SOURCE%/*}/common.sh"

work=$(mktemp -d "$BIN/sim-cli-XXXXXX")
cd "$work"

# (but the production-size mahler_yum_2024, minutes on two cores:
# test_mahler_yum.sh runs it at reduced sizes, bench/mahler_yum.sh in full;
# and durables at the paper's grids, hours: test_durables.sh runs it
# at small sizes)
for model in "$SRC"/models/*.lua; do
  case $model in *.params.lua|*.initial.lua|*/mahler_yum_2024.lua|*/durables.lua) continue ;; esac
  name=$(basename "$model" .lua)
  "$LCM" run "$model" --out-dir "$work/results" > "$work/$name.out" 2> "$work/$name.err"
  rc=$?
  check "lcm run $name exits 0" "[ $rc -eq 0 ]"
  check "lcm run $name wrote its panel" "head -1 '$work/results/$name.panel.csv' | grep -q '^subject_id,period,age,regime,value'"
  check "lcm run $name wrote its solution" "[ -s '$work/results/$name.solution.h5' ] && [ -s '$work/results/$name.panel.h5' ]"
  check "lcm run $name said so, in one line" "[ \$(grep -c 'panel rows): wrote .*$name.solution.h5, .*$name.panel.h5, .*$name.panel.csv' '$work/$name.err') -eq 1 ]"
  check "lcm run $name ended with the report's command, nothing else" "[ \$(wc -l < '$work/$name.err') -eq 2 ] && tail -1 '$work/$name.err' | grep -q 'python3 -m lcmgen report .*$name.lua .*$name.solution.h5 .*$name.panel.csv -o .*$name.report.html\$'"
  check "lcm run $name keeps standard output for data" "[ ! -s '$work/$name.out' ]"
done

# the panel does not depend on the batch size ...
model=$SRC/models/precautionary_savings_health.lua
args="--params $SRC/models/precautionary_savings_health.params.lua --initial $SRC/models/precautionary_savings_health.initial.csv --seed 5 --log-level warning"
for k in 0 1 7 1000; do
  "$LCM" simulate "$model" $args --subject-batch-size $k --csv "$work/k$k.csv"
done
for k in 1 7 1000; do check "batch size $k gives the same panel" "cmp -s '$work/k0.csv' '$work/k$k.csv'"; done
# ... but on the seed
"$LCM" simulate "$model" ${args/--seed 5/--seed 6} --csv "$work/seed6.csv"
check "another seed gives another panel" "! cmp -s '$work/k0.csv' '$work/seed6.csv'"

# a saved solution simulates the same panel as solving again
"$LCM" solve "$model" --params "$SRC/models/precautionary_savings_health.params.lua" --out "$work/sol.h5" --log-level warning
"$LCM" simulate "$model" --solution "$work/sol.h5" --initial "$SRC/models/precautionary_savings_health.initial.csv" \
  --seed 5 --csv "$work/from-solution.csv" --log-level warning
check "the saved solution gives the same panel" "cmp -s '$work/k0.csv' '$work/from-solution.csv'"

# the HDF5 panel: one dataset per CSV column, as many rows
"$LCM" simulate "$model" $args --out "$work/panel.h5" --targets all
if command -v h5dump > /dev/null; then
  for col in subject_id period age regime value health income wealth consumption utility; do
    check "HDF5 panel has $col" "h5dump -H -d /$col '$work/panel.h5' > /dev/null 2>&1"
  done
  rows=$(($(wc -l < "$work/k0.csv") - 1))
  check "HDF5 panel has $rows rows" "h5dump -H -d /value '$work/panel.h5' | grep -q \"( $rows )\""
fi

# what the checks report does not depend on the batches: subject 3 starts
# at a later age than subject 50, and both reach a NaN V (the error names
# 3); subjects 7 and 10 have no feasible action, in different periods
{ echo regime,age,wealth,income
  for i in $(seq 0 59); do
    case $i in 3) echo alive,30,5,1e308 ;; 50) echo alive,20,5,1e308 ;; *) echo alive,20,5, ;; esac
  done; } > "$work/nan.csv"
{ echo regime,age,wealth
  for i in $(seq 0 19); do
    case $i in 7) echo alive,1,0.2 ;; 10|12) echo alive,0,0.2 ;; *) echo alive,0,5 ;; esac
  done; } > "$work/infeasible.csv"
for k in 0 1 7; do
  "$LCM" simulate "$SRC/models/precautionary_savings.lua" --params "$SRC/models/precautionary_savings.params.lua" \
    --initial "$work/nan.csv" --csv "$work/nan$k.csv" --subject-batch-size $k 2> "$work/nan$k.err"
  "$LCM" simulate "$SRC/models/tiny.lua" --params "$SRC/models/tiny.params.lua" \
    --initial "$work/infeasible.csv" --csv "$work/inf$k.csv" --subject-batch-size $k 2> "$work/inf$k.err"
done
check "a NaN V names the lowest subject, at its period" "grep -q 'error: simulation: subject 3, period 1 (age 30)' '$work/nan0.err'"
check "no feasible action: a warning per period, its lowest subject" "grep -q 'subject 10, period 0' '$work/inf0.err' && grep -q 'subject 7, period 1' '$work/inf0.err'"
for k in 1 7; do
  check "batch size $k reports the same error" "cmp -s '$work/nan0.err' '$work/nan$k.err'"
  check "batch size $k warns the same, in the same order" "[ \"\$(grep warning '$work/inf0.err')\" = \"\$(grep warning '$work/inf$k.err')\" ]"
done

# a target the model lacks is refused before anything is solved
"$LCM" simulate "$SRC/models/mortality.lua" --params "$SRC/models/mortality.params.lua" \
  --initial "$SRC/models/mortality.initial.csv" --csv "$work/t.csv" --targets nosuch --log-level progress \
  2> "$work/targets.err"
rc=$?
check "an unknown target is a usage error" "[ $rc -eq 2 ] && grep -q \"no function 'nosuch'\" '$work/targets.err'"
check "an unknown target stops the run before the solve" "! grep -q 'solving' '$work/targets.err'"

# help
check "lcm simulate --help" "'$LCM' simulate --help | grep -q 'subject-batch-size'"
check "lcm run --help" "'$LCM' run --help | grep -q 'initial.csv'"

cd /
rm -rf "$work"
exit $fail
