#!/bin/bash
# The Lua hosts stop model and params files that never finish or take
# memory without end: one clear error naming the file, the exit code of
# that kind of file (3 model, 4 params), no output, within seconds (the
# limits are set low here; the defaults are 1e9 instructions and 2 GiB).
# An invalid limit is a usage error (2), not the default; memory that the
# system refuses below the limit (ulimit -v) an error naming the file (10).
. "${BASH_SOURCE%/*}/../integration/common.sh"
work_dir lua-limits
export LCM_LUA_MAX_INSTRUCTIONS=1e6 LCM_LUA_MAX_MEMORY=67108864

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
  "lcmgen: error: $work/churn.lua: the model did not finish loading after 1e+06 $limit; library calls count their work as instructions, and the one that passed the limit, at $work/churn.lua:2, was string.rep counting 8e+06" \
  "$LCMGEN" "$work/churn.lua" -o "$work/out"
expect "endless loop in a params file" 4 \
  "lcm solve: error: $work/loop.params.lua: the params file did not finish loading after 1e+06 $limit" \
  "$LCM" solve "$tiny" --params "$work/loop.params.lua" --csv "$work/out"
expect "endless loop in --set" 4 \
  "lcm solve: error: --set interest_rate: the value did not finish loading after 1e+06 $limit" \
  "$LCM" solve "$tiny" --params "$SRC/models/tiny.params.lua" \
  --set "interest_rate=(function() while true do end end)()" --csv "$work/out"

# An invalid limit in the environment: an error, not the default silently
# (empty is unset).
for bad in abc -1G 12X inf 0 0.5M; do
  expect "LCM_LUA_MAX_MEMORY=$bad" 2 \
    "lcmgen: error: LCM_LUA_MAX_MEMORY must be a size of at least 1M like 64M or 2G, not '$bad'" \
    env LCM_LUA_MAX_MEMORY=$bad "$LCMGEN" "$tiny" -o "$work/out"
done
for bad in abc 0 0.5 1e6x nan inf; do
  expect "LCM_LUA_MAX_INSTRUCTIONS=$bad" 2 \
    "lcmgen: error: LCM_LUA_MAX_INSTRUCTIONS must be a number of at least 1 like 1e9, not '$bad'" \
    env LCM_LUA_MAX_INSTRUCTIONS=$bad "$LCMGEN" "$tiny" -o "$work/out"
done
expect "LCM_LUA_MAX_MEMORY invalid (lcm)" 2 \
  "lcm solve: error: LCM_LUA_MAX_MEMORY must be a size of at least 1M like 64M or 2G, not '1GG'" \
  env LCM_LUA_MAX_MEMORY=1GG "$LCM" solve "$tiny" --params "$SRC/models/tiny.params.lua" --csv "$work/out"
# sizes like LCM_MEMORY_LIMIT's, and empty ones unset
expect "LCM_LUA_MAX_MEMORY=1M" 3 \
  "lcmgen: error: $work/bomb.lua: out of memory: the model needed more than 1 MiB of Lua memory while loading (LCM_LUA_MAX_MEMORY raises the limit)" \
  env LCM_LUA_MAX_MEMORY=1M LCM_LUA_MAX_INSTRUCTIONS=1e9 "$LCMGEN" "$work/bomb.lua" -o "$work/out"
expect "empty LCM_LUA_MAX_INSTRUCTIONS is unset" 3 \
  "lcmgen: error: $work/bomb.lua: out of memory: the model needed more than 64 MiB of Lua memory while loading (LCM_LUA_MAX_MEMORY raises the limit)" \
  env LCM_LUA_MAX_INSTRUCTIONS= "$LCMGEN" "$work/bomb.lua" -o "$work/out"

# Memory the system refuses below the Lua limit (ulimit -v): the error names
# the file, not Lua's bare "not enough memory".  Skipped where the tools do
# not run under a lowered ulimit -v (a sanitizer build reserves terabytes).
printf 'error("probe")\n' > "$work/probe.lua"
printf 'local t = {}\nfor i = 1, 1e8 do t[i] = i end\n' > "$work/big.lua"
printf 'local t = {}\nfor i = 1, 1e8 do t[i] = i end\nreturn {}\n' > "$work/big.params.lua"
refused() { (ulimit -v 400000 2> /dev/null || exit 77; exec env LCM_LUA_MAX_MEMORY=8G LCM_LUA_MAX_INSTRUCTIONS=1e10 "$@"); }
# (under scripts/sanitize.sh, which sets ASAN_OPTIONS, not even tried: the
# sanitizer's failed reservation would be a report of its own)
if [ -z "${ASAN_OPTIONS:-}" ]; then
  refused "$LCMGEN" "$work/probe.lua" -o "$work/out" > /dev/null 2> "$work/stderr"
  probe=$?
else
  probe=sanitizer
fi
if [ "$probe" != 3 ] || [ "$(cat "$work/stderr")" != "lcmgen: error: $work/probe.lua:1: probe" ]; then
  echo "skipped: the memory that the system refuses (a sanitizer run, or lcmgen does not run under ulimit -v 400000)"
else
  for tool in lcmgen lcm params; do
    file=$work/big.lua what="the model" prefix="lcm solve"
    case $tool in
      lcmgen) cmd=("$LCMGEN" "$file" -o "$work/out") prefix="lcmgen" ;;
      lcm) cmd=("$LCM" solve "$file" --csv "$work/out") ;;
      params) file=$work/big.params.lua what="the params file"
              cmd=("$LCM" solve "$tiny" --params "$file" --csv "$work/out") ;;
    esac
    refused timeout 60 "${cmd[@]}" > /dev/null 2> "$work/stderr"
    rc=$?
    got=$(cat "$work/stderr")
    want="$prefix: error: $file: out of memory: the system refused more memory while loading $what (* MiB of Lua memory in use)"
    # shellcheck disable=SC2053 # want is a pattern: the MiB in use depend on the machine
    if [ $rc != 10 ] || [[ $got != $want ]]; then
      echo "FAILED: memory refused by the system ($tool): exit code $rc (expected 10)"
      echo "  stderr:   $got"
      echo "  expected: $want"
      fail=1
    fi
    if [ -e "$work/out" ]; then echo "FAILED: memory refused by the system ($tool): left output"; rm -rf "$work/out"; fail=1; fi
  done
fi

rm -rf "$work"
exit $fail
