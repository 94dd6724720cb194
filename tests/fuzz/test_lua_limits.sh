#!/bin/bash
# The Lua hosts stop model and params files that never finish or take
# memory without end: one clear error naming the file, the exit code of
# that kind of file (3 model, 4 params), no output, within seconds (the
# limits are set low here; the defaults are 1e9 instructions and 2 GiB).
set -u
LCM=$1 LCMGEN=$2 SRC=$3 BIN=$4
fail=0
work=$(mktemp -d "$BIN/lua-limits-XXXXXX")
export LCM_CACHE_DIR=$work/cache LCM_LUA_MAX_INSTRUCTIONS=1e6 LCM_LUA_MAX_MEMORY=67108864

# expect NAME EXIT_CODE "EXACT STDERR" COMMAND...: a hang fails after 30 s
expect() {
  local name=$1 want_rc=$2 want_msg=$3
  shift 3
  local start=$SECONDS
  timeout 30 "$@" > /dev/null 2> "$work/stderr"
  local rc=$? took=$((SECONDS - start))
  local got
  got=$(cat "$work/stderr")
  if [ "$rc" != "$want_rc" ] || [ "$got" != "$want_msg" ]; then
    echo "FAILED: $name: exit code $rc (expected $want_rc) after $took s"
    echo "  stderr:   $got"
    echo "  expected: $want_msg"
    fail=1
  fi
  if [ -e "$work/out" ]; then echo "FAILED: $name: left output"; rm -rf "$work/out"; fail=1; fi
}

printf 'local lcm = require("lcm")\nwhile true do end\n' > "$work/loop.lua"
printf 'while true do pcall(function() while true do end end) end\n' > "$work/swallow.lua"
printf 'local t = {}\nwhile true do t[#t + 1] = ("x"):rep(1e6) end\n' > "$work/bomb.lua"
printf 'local t = {}\nwhile true do t[0] = ("x"):rep(1e6) end\n' > "$work/churn.lua"
printf 'local n = 0\nwhile true do n = n + 1 end\nreturn { interest_rate = n }\n' > "$work/loop.params.lua"
tiny=$SRC/models/tiny.lua

limit="Lua instructions (an endless loop? LCM_LUA_MAX_INSTRUCTIONS raises the limit)"
expect "endless loop in a model (lcmgen)" 3 \
  "lcmgen: error: $work/loop.lua: the model did not finish loading after 1e+06 $limit" \
  "$LCMGEN" "$work/loop.lua" -o "$work/out"
expect "endless loop in a model (lcm)" 3 \
  "lcm solve: error: $work/loop.lua: the model did not finish loading after 1e+06 $limit" \
  "$LCM" solve "$work/loop.lua" --csv "$work/out"
expect "endless loop that swallows the error with pcall" 3 \
  "lcmgen: error: $work/swallow.lua: the model did not finish loading after 1e+06 $limit" \
  "$LCMGEN" "$work/swallow.lua" -o "$work/out"
# (allocations count towards the instructions too: here they must not end it first)
expect "memory bomb in a model" 3 \
  "lcmgen: error: $work/bomb.lua: out of memory: the model needed more than 64 MiB of Lua memory while loading (LCM_LUA_MAX_MEMORY raises the limit)" \
  env LCM_LUA_MAX_INSTRUCTIONS=1e9 "$LCMGEN" "$work/bomb.lua" -o "$work/out"
expect "a loop of few instructions that each do much work" 3 \
  "lcmgen: error: $work/churn.lua: the model did not finish loading after 1e+06 $limit" \
  "$LCMGEN" "$work/churn.lua" -o "$work/out"
expect "endless loop in a params file" 4 \
  "lcm solve: error: $work/loop.params.lua: the params file did not finish loading after 1e+06 $limit" \
  "$LCM" solve "$tiny" --params "$work/loop.params.lua" --csv "$work/out"
expect "endless loop in --set" 4 \
  "lcm solve: error: --set interest_rate: the value did not finish loading after 1e+06 $limit" \
  "$LCM" solve "$tiny" --params "$SRC/models/tiny.params.lua" \
  --set "interest_rate=(function() while true do end end)()" --csv "$work/out"

rm -rf "$work"
exit $fail
