#!/bin/bash
# Mahler & Yum (2024), models/mahler_yum_2024.lua, in CI time (the full
# solve is bench/mahler_yum.sh):
# - at the paper's grid sizes from age 97 (-D first_age=97: the last two ages
#   alive), V equals pylcm's (tests/reference/mahler_yum_2024/V_slice.h5,
#   periods 36 and 37 of the paper) to 1e-8 relative;
# - lcm run solves and simulates it at reduced grid sizes from its bundled
#   initial conditions, the panel has its states, actions and functions, its
#   40 subjects start with a habit on the reduced effort grid, and every
#   living subject of age 65 or more is retired with its pension;
# - -D variant=paper gives another V (its pension differs).
. "${BASH_SOURCE%/*}/common.sh"

work=$(mktemp -d "$BIN/mahler-yum-XXXXXX")
model=$SRC/models/mahler_yum_2024.lua

# parameters for a model that starts at 97, made as for the whole life cycle
cp -r "$SRC/models/mahler_yum_2024" "$work/"
cat > "$work/from_97.params.lua" <<'EOF'
local inputs = require("mahler_yum_2024.inputs")
return inputs.model_params(require("mahler_yum_2024.estimates"), "benchmark", 97)
EOF
"$LCM" solve "$model" -D first_age=97 --params "$work/from_97.params.lua" --backend cpu \
  --out "$work/from_97.h5" --log-level warning
check "the last two ages solve" "[ -s '$work/from_97.h5' ]"
ref=$SRC/tests/reference/mahler_yum_2024/V_slice.h5
fixed="productivity_shock=2 lagged_effort=0 adjustment_cost=0"
for p in 0 1; do
  "$VCMP" "$ref" /V/alive/slice_all_periods "$work/from_97.h5" /V/period_$p/alive period=$((36 + p)) $fixed \
    > "$work/cmp$p" 2>&1
  rc=$?
  cat "$work/cmp$p"
  check "V at age $((97 + 2 * p)) equals pylcm's to 1e-8" "[ $rc -eq 0 ] && grep -q '^1600 values compared' '$work/cmp$p'"
done

# reduced sizes, end to end, from the bundled initial conditions (which read
# -D effort_points and shock_points through lcm.option)
small="-D wealth_points=6 -D effort_points=3 -D shock_points=3 -D cost_points=2"
"$LCM" run "$model" $small --subjects 40 --out-dir "$work/run" --targets all \
  --seed 3 --log-level warning 2> "$work/run.err"
cat "$work/run.err"
check "lcm run at reduced sizes" "[ -s '$work/run/mahler_yum_2024.panel.csv' ]"
panel=$work/run/mahler_yum_2024.panel.csv
check "the panel names the model's states, actions and functions" \
  "head -1 '$panel' | tr ',' '\n' | sort | tr '\n' ' ' | grep -q 'adjustment_cost .*consumption .*effort .*labor_supply .*lagged_effort .*pension .*productivity_shock .*saving .*wealth '"
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  $c["period"] == 0 { n++; if ($c["lagged_effort"] !~ /^[012]$/) bad = 1 }
  END { exit !(n == 40 && !bad) }' "$panel"
check "40 subjects start with a habit on the 3-level effort grid" "[ $? -eq 0 ]"
# columns by name, then: every living subject from 65 on is retired and paid a pension
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  $c["regime"] == "alive" && $c["age"] >= 65 && ($c["labor_supply"] != "retired" || $c["pension"] <= 0) { bad = 1 }
  $c["regime"] == "alive" && $c["age"] >= 65 { n++ }
  END { exit !(n > 0 && !bad) }' "$panel"
check "from 65 everyone alive is retired with a pension" "[ $? -eq 0 ]"

# the paper's variant: the pension of education only
"$LCM" solve "$model" $small --params "$SRC/models/mahler_yum_2024.params.lua" --out "$work/bench.h5" --log-level warning
"$LCM" solve "$model" $small -D variant=paper --params "$SRC/models/mahler_yum_2024.params.lua" \
  --out "$work/paper.h5" --log-level warning
"$VCMP" "$work/bench.h5" /V/period_37/alive "$work/paper.h5" /V/period_37/alive --rtol 0 > /dev/null
check "the variants differ (their pensions do)" "[ $? -eq 1 ]"
"$VCMP" "$work/bench.h5" /V/period_0/alive "$work/bench.h5" /V/period_0/alive --rtol 0 > /dev/null
check "an array equals itself" "[ $? -eq 0 ]"

rm -rf "$work"
exit $fail
