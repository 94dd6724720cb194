#!/bin/bash
# Parameters fixed from outside the model (--fix): the same mechanism as the
# model's fixed_params, so the same kernels; values from the parameters or
# the command line; the same V and panel as with the parameter at run time;
# one cached solver per fixed value.
. "${BASH_SOURCE%/*}/common.sh"

work_dir fix-cli
model=$SRC/models/fvv_2018.lua
params=$SRC/models/fvv_2018.params.lua

# fvv_2018.lua -D fixed=true puts these four values into its fixed_params
"$LCMGEN" "$model" -D nx=30 -D fixed=true -o "$work/in_model"
"$LCMGEN" "$model" -D nx=30 --fix risk_aversion=2 --fix discount_factor=0.97 --fix interest_rate=0.07 \
    --fix=wage=5.0 -o "$work/from_outside"
check "--fix generates the kernels fixed_params does" "cmp -s '$work/in_model/kernels.c' '$work/from_outside/kernels.c'"
"$LCMGEN" "$model" -D nx=30 -o "$work/run_time"
check "a fixed value changes the kernels" "! cmp -s '$work/run_time/kernels.c' '$work/from_outside/kernels.c'"

"$LCM" params-template "$model" -D nx=30 --fix risk_aversion=2 > "$work/template.lua"
check "a fixed parameter leaves the params template" "! grep -q risk_aversion '$work/template.lua'"
check "the others stay in it" "grep -q discount_factor '$work/template.lua'"

solve() { # solve NAME ARGS...: V as CSV into $work/NAME.csv, the log into $work/NAME.log
    local name=$1
    shift
    "$LCM" solve "$model" -D nx=30 --params "$params" --backend cpu --log-level progress --csv "$work/$name.csv" "$@" \
        2> "$work/$name.log"
}
solve run_time
solve fixed --fix risk_aversion --fix discount_factor
check "the value comes from the params file" "grep -q 'compiled the cpu solver' '$work/fixed.log'"
check "same V as at run time" "cmp -s '$work/run_time.csv' '$work/fixed.csv'"
solve fixed_again --fix risk_aversion --fix discount_factor
check "the same fixed values reuse the cached solver" "grep -q 'from the cache' '$work/fixed_again.log'"
check "... which gives the same V" "cmp -s '$work/fixed.csv' '$work/fixed_again.csv'"
solve fixed_3 --set risk_aversion=3 --fix risk_aversion
check "another fixed value compiles another solver" "grep -q 'compiled the cpu solver' '$work/fixed_3.log'"
solve run_time_3 --set risk_aversion=3
check "--set then --fix: the value --set gave" "cmp -s '$work/run_time_3.csv' '$work/fixed_3.csv'"
check "... not the file's" "! cmp -s '$work/run_time.csv' '$work/fixed_3.csv'"
solve explicit --fix risk_aversion=2.0 --fix discount_factor=0.97
check "--fix name=value equal to the params file's is accepted" "cmp -s '$work/fixed.csv' '$work/explicit.csv'"
check "... and is the solver --fix name made" "grep -q 'from the cache' '$work/explicit.log'"
check "solvers in the cache: run time, two fixed values, risk aversion 3 at run time shares the first" \
    "[ \$(ls '$LCM_CACHE_DIR/cpu' | wc -l) -eq 3 ]"

# lcm run: the panel does not change either
"$LCM" run "$model" -D nx=30 --backend cpu --out-dir "$work/run_a" 2> /dev/null
"$LCM" run "$model" -D nx=30 --backend cpu --out-dir "$work/run_b" --fix wage --fix interest_rate 2> /dev/null
check "same panel with --fix" "cmp -s '$work/run_a/fvv_2018.panel.csv' '$work/run_b/fvv_2018.panel.csv'"
"$LCM" simulate "$model" -D nx=30 --solution "$work/run_b/fvv_2018.solution.h5" --fix wage=5 --fix interest_rate=0.07 \
    --initial "$SRC/models/fvv_2018.initial.csv" --backend cpu --csv "$work/sim.csv" 2> /dev/null
check "simulate from a solution made with --fix, given the same --fix" \
    "cmp -s '$work/run_a/fvv_2018.panel.csv' '$work/sim.csv'"

[ $fail -eq 0 ] && rm -rf "$work"
exit $fail
