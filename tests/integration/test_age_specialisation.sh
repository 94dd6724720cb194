#!/bin/bash
# Age specialisation (lcm.by_age, docs/model-language.md section 5): the
# model of tests/models/age_grid.lua (a wealth grid that changes with age,
# an income and a budget constraint that change at retirement) against the
# same model written with one regime per age span
# (tests/models/age_grid_spans.lua), an independent formulation:
# - V at every period equal (float64 on cpu and the interpreter, float32);
# - splaying the grid by age changes nothing;
# - the solution's CSV lists each period's own grid points;
# - simulated panels (values, states, actions, the income target) equal.
. "${BASH_SOURCE%/*}/common.sh"
work_dir age
M=$SRC/tests/models/age_grid.lua S=$SRC/tests/models/age_grid_spans.lua P=$SRC/tests/models/age_grid.params.lua

# the span regime holding period t
span() { if [ "$1" -lt 3 ]; then echo working; else echo retired; fi; }
same_v() { # label, ours.h5, reference.h5, reference uses spans (1) or alive (0), rtol
  for t in 0 1 2 3 4 5; do
    r=alive
    [ "$4" = 1 ] && r=$(span $t)
    check "$1: V at period $t" "'$VCMP' '$3' /V/period_$t/$r '$2' /V/period_$t/alive --rtol $5 > '$work/cmp.txt'"
  done
}

for b in cpu interp; do
  check "solve by age ($b)" "'$LCM' solve '$M' --params '$P' --backend $b --out '$work/age_$b.h5' --csv '$work/age_$b.csv' --log-level warning"
  check "solve by spans ($b)" "'$LCM' solve '$S' --params '$P' --backend $b --out '$work/spans_$b.h5' --log-level warning"
  same_v "by age = by spans, $b" "$work/age_$b.h5" "$work/spans_$b.h5" 1 1e-12
done
same_v "cpu = interpreter" "$work/age_cpu.h5" "$work/age_interp.h5" 0 1e-12
check "solve by age, float32" "'$LCM' solve '$M' --params '$P' --backend cpu --precision 32 --out '$work/age_32.h5' --log-level warning"
check "solve by spans, float32" "'$LCM' solve '$S' --params '$P' --backend cpu --precision 32 --out '$work/spans_32.h5' --log-level warning"
for t in 0 3 5; do
  check "float32: V at period $t" "'$VCMP' '$work/spans_32.h5' /V/period_$t/$(span $t) '$work/age_32.h5' /V/period_$t/alive --rtol 1e-5 > /dev/null"
done
check "splayed grid by age" "'$LCM' solve '$M' -D splay=true --params '$P' --backend cpu --out '$work/splay.h5' --log-level warning"
same_v "splayed = unsplayed" "$work/splay.h5" "$work/age_cpu.h5" 0 0

# a builder's own `==` (on the plain number age) is no warning about the
# function it returns, on the same line
sed 's/if age < RETIREMENT then return function(wage)/if age == 0 or age == 1 or age == 2 then return function(wage)/' \
  "$M" > "$work/age_equal.lua"
check "the model copy uses ==" "grep -q 'age == 0' '$work/age_equal.lua'"
check "solve with == in a builder" "'$LCM' solve '$work/age_equal.lua' --params '$P' --backend cpu --out '$work/equal.h5' --log-level warning 2> '$work/equal.err'"
check "no warning about ==" "[ ! -s '$work/equal.err' ]"
same_v "== in a builder" "$work/equal.h5" "$work/age_cpu.h5" 0 0

# each period's own grid in the CSV: the linspace (step 0.375) to age 2, the
# logspace from age 3 (its second point 30^(1/24))
second_point() { awk -F, -v t="$1" '$1 == t && $3 == "alive" { n++; if (n == 2) { print $4; exit } }' "$work/age_cpu.csv"; }
check "CSV: period 2 on the linspace" "[ '$(second_point 2)' = 1.375 ]"
check "CSV: period 3 on the logspace" "awk 'BEGIN { exit !($(second_point 3) == exp(log(30) / 24)) }'"

# simulated panels: the same subjects through both formulations
printf 'regime,age,wealth\nalive,0,2.5\nalive,0,7.25\nalive,0,9.9\nalive,0,1\n' > "$work/age.initial.csv"
sed 's/^alive/working/' "$work/age.initial.csv" > "$work/spans.initial.csv"
for b in cpu interp; do
  check "simulate by age ($b)" "'$LCM' simulate '$M' --params '$P' --solution '$work/age_cpu.h5' --initial '$work/age.initial.csv' --backend $b --targets income --csv '$work/age_panel_$b.csv' --log-level warning"
  check "simulate by spans ($b)" "'$LCM' simulate '$S' --params '$P' --solution '$work/spans_cpu.h5' --initial '$work/spans.initial.csv' --backend $b --targets income --csv '$work/spans_panel_$b.csv' --log-level warning"
  # all but the regime column
  check "panels equal ($b)" "diff <(cut -d, -f1-3,5- '$work/age_panel_$b.csv') <(cut -d, -f1-3,5- '$work/spans_panel_$b.csv')"
done
check "income is the wage to age 2, the pension from 3" \
  "awk -F, 'NR > 1 && \$4 == \"alive\" { if ((\$3 < 3 && \$8 != 1) || (\$3 >= 3 && \$8 != 0.6)) bad = 1; n++ } END { exit bad || n != 24 }' '$work/age_panel_cpu.csv'"

rm -rf "$work"
exit $fail
