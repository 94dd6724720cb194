#!/bin/bash
# The solver cache seen from the command line: a second solve compiles
# nothing, a changed model compiles again, a damaged entry is rebuilt with a
# warning, an unwritable cache still solves, and outputs do not depend on
# whether the solver came from the cache.
. "${BASH_SOURCE%/*}/common.sh"

work_dir cache-cli
model=$SRC/models/iskhakov_2017.lua
params=$SRC/models/iskhakov_2017.params.lua

"$LCM" solve --backend cpu --log-level progress "$model" --params "$params" --out "$work/a.h5" --csv "$work/a.csv" 2> "$work/log1"
check "first solve compiles" "grep -q 'compiled the cpu solver' '$work/log1'"
"$LCM" solve --backend cpu --log-level progress "$model" --params "$params" --out "$work/b.h5" --csv "$work/b.csv" 2> "$work/log2"
check "second solve loads from the cache" "grep -q 'from the cache' '$work/log2'"
check "second solve compiles nothing" "! grep -q 'compiled' '$work/log2'"
check "same CSV from a cached solver" "cmp -s '$work/a.csv' '$work/b.csv'"
check "same HDF5 from a cached solver" "cmp -s '$work/a.h5' '$work/b.h5'"
check "one cache entry" "[ \$(ls '$LCM_CACHE_DIR/cpu' | wc -l) -eq 1 ]"

# the solver does not depend on how the model's path is spelled
(cd "$SRC" && "$LCM" solve --backend cpu --log-level progress ./models/../models/iskhakov_2017.lua --params "$params" --csv "$work/p.csv" 2> "$work/logp")
check "another spelling of the path hits the cache" "grep -q 'from the cache' '$work/logp'"

"$LCM" solve --backend cpu --log-level progress "$model" -D n_periods=4 --params "$SRC/models/iskhakov_2017_low_delta.params.lua" --out "$work/c.h5" 2> "$work/log3"
check "a changed model compiles again" "grep -q 'compiled the cpu solver' '$work/log3'"
"$LCM" solve --backend cpu --log-level progress "$model" --params "$params" --precision 32 --out "$work/d.h5" 2> "$work/log4"
check "float32 is a different solver" "grep -q 'compiled the cpu solver' '$work/log4'"

# shock-process parameters and run-time grid points are inputs of the solve,
# not of the solver: changing them reuses the compiled kernels
ps=$SRC/models/precautionary_savings.lua
psp=$SRC/models/precautionary_savings.params.lua
"$LCM" solve --backend cpu --log-level progress "$ps" -D wealth_grid=runtime -D wealth_points=4 --params "$psp" \
    --set 'alive.wealth.points={0.5,2,5,9}' --csv "$work/g.csv" 2> "$work/log7"
check "process model compiles once" "grep -q 'compiled the cpu solver' '$work/log7'"
"$LCM" solve --backend cpu --log-level progress "$ps" -D wealth_grid=runtime -D wealth_points=4 --params "$psp" --set alive.income.rho=0.5 \
    --set 'alive.wealth.points={0.1,1,3,9}' --csv "$work/h.csv" 2> "$work/log8"
check "new process and grid points hit the cache" "grep -q 'from the cache' '$work/log8'"
check "new process and grid points change V" "! cmp -s '$work/g.csv' '$work/h.csv'"

# damage the float64 entry of the first model: truncate it
entry=$(grep -l . "$LCM_CACHE_DIR"/cpu/*.lcmc | head -1)
for f in "$LCM_CACHE_DIR"/cpu/*.lcmc; do truncate -s 100 "$f"; done
"$LCM" solve --backend cpu --log-level progress "$model" --params "$params" --csv "$work/e.csv" 2> "$work/log5"
check "damaged entry reported" "grep -q 'is corrupt' '$work/log5'"
check "damaged entry rebuilt" "grep -q 'compiled the cpu solver' '$work/log5'"
check "rebuilt solver gives the same V" "cmp -s '$work/a.csv' '$work/e.csv'"

# a cache that cannot be written
LCM_CACHE_DIR=/dev/null/lcm "$LCM" solve --backend cpu --log-level progress "$model" --params "$params" --csv "$work/f.csv" 2> "$work/log6"
check "unwritable cache still solves" "cmp -s '$work/a.csv' '$work/f.csv'"
check "unwritable cache warned about" "grep -q 'cannot write the solver cache' '$work/log6'"

# lcm cache list names each entry's model and precision; clear MODEL
# removes that model's entries only
export LCM_CACHE_DIR=$work/labels
"$LCM" compile --backend cpu "$SRC/models/tiny.lua" && "$LCM" compile --backend cpu --precision 32 "$SRC/models/tiny.lua" &&
  "$LCM" compile --backend cpu "$SRC/models/mortality.lua"
"$LCM" cache list > "$work/list"
check "list names the model and precision" "[ \$(grep -c '^cpu .* ok  tiny  float64\$' '$work/list') -eq 1 ] &&
  [ \$(grep -c '^cpu .* ok  tiny  float32\$' '$work/list') -eq 1 ] && [ \$(grep -c '^cpu .* ok  mortality  float64\$' '$work/list') -eq 1 ]"
"$LCM" cache clear tiny > "$work/clear-tiny"
check "clear MODEL says how many" "grep -qx \"removed 2 entries of model 'tiny' from $LCM_CACHE_DIR\" '$work/clear-tiny'"
"$LCM" cache list > "$work/list2"
check "clear MODEL leaves the other models" "! grep -q ' tiny ' '$work/list2' && grep -q ' mortality  float64' '$work/list2'"
"$LCM" cache clear tnyi > "$work/clear-none" 2> "$work/clear-none.err"
check "clear of a model with no entries says which there are" "[ $? -eq 0 ] && grep -q 'removed 0 entries' '$work/clear-none' &&
  grep -qF \"lcm: warning: no entry of the cache is of model 'tnyi' (its models: mortality)\" '$work/clear-none.err'"
"$LCM" cache clear tiny mortality 2> "$work/clear-two"
check "clear takes one model" "[ $? -eq 2 ] && grep -q \"unexpected argument 'mortality'\" '$work/clear-two'"
"$LCM" cache list extra 2> /dev/null
check "list takes no model" "[ $? -eq 2 ]"
"$LCM" cache clear '' 2> "$work/clear-empty"
check "clear '' is no model (the compiler's entries have none)" "[ $? -eq 2 ] && grep -q 'takes the name of a model' '$work/clear-empty' && [ -n \"\$(ls -A '$LCM_CACHE_DIR/cc')\" ]"
"$LCM" cache clear --all 2> /dev/null
check "clear --all is no model" "[ $? -eq 2 ] && grep -q ' mortality  float64' '$work/list2'"

# lcm cache clear goes on past what it cannot remove and says so; a
# folder under an entry's name (lcm never makes one) goes only when empty
export LCM_CACHE_DIR=$work/clear
"$LCM" compile --backend cpu "$SRC/models/tiny.lua" && "$LCM" compile --backend cpu "$SRC/models/mortality.lua"
mkdir -p "$LCM_CACHE_DIR/cpu/a-full.lcmc" "$LCM_CACHE_DIR/cpu/b-empty.lcmc" "$LCM_CACHE_DIR/cuda/c-full.lcmc"
touch "$LCM_CACHE_DIR/cpu/a-full.lcmc/keep" "$LCM_CACHE_DIR/cuda/c-full.lcmc/keep"
"$LCM" cache info > "$work/info"
check "cache info counts the folders apart" "grep -q '^folders    3 under' '$work/info'"
"$LCM" cache clear > "$work/clear.out" 2> "$work/clear.err"
check "clear fails when names are left" "[ $? -eq 5 ] && [ ! -s '$work/clear.out' ]"
check "clear names the first and counts them" "grep -qF 'lcm cache: error: removed 4 entries, but not 2, the first: $LCM_CACHE_DIR/cpu/a-full.lcmc is a folder with files in it, not an entry' '$work/clear.err'"
check "clear removed every entry" "[ \$(ls '$LCM_CACHE_DIR/cpu' | wc -l) -eq 1 ] && [ ! -e '$LCM_CACHE_DIR/cc' ]"
check "clear left the folders' files" "[ -f '$LCM_CACHE_DIR/cpu/a-full.lcmc/keep' ] && [ -f '$LCM_CACHE_DIR/cuda/c-full.lcmc/keep' ]"
touch "$work/a-file"
check "cache info: a file is not writable" "LCM_CACHE_DIR='$work/a-file' '$LCM' cache info | grep -q '^writable   no (not a folder)'"
check "cache info names the variable the location comes from" "'$LCM' cache info | grep -qxF 'location   $LCM_CACHE_DIR (from \$LCM_CACHE_DIR)'"
check "an empty LCM_CACHE_DIR is unset: the location comes from XDG_CACHE_HOME" "LCM_CACHE_DIR= XDG_CACHE_HOME='$work/xdg' '$LCM' cache info | grep -qxF 'location   $work/xdg/lcm (from \$XDG_CACHE_HOME)'"
check "and from HOME without either" "LCM_CACHE_DIR= XDG_CACHE_HOME= HOME='$work/home' '$LCM' cache info | grep -qxF 'location   $work/home/.cache/lcm (from \$HOME)'"
check "a relative XDG_CACHE_HOME is ignored (the XDG rules), HOME used" "LCM_CACHE_DIR= XDG_CACHE_HOME=rel HOME='$work/home' '$LCM' cache info | grep -qxF 'location   $work/home/.cache/lcm (from \$HOME)'"
check "and without an absolute HOME, /tmp/.cache/lcm" "LCM_CACHE_DIR= XDG_CACHE_HOME= HOME=rel '$LCM' cache info | grep -qF 'location   /tmp/.cache/lcm'"

rm -rf "$work"
exit $fail
