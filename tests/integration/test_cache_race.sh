#!/bin/bash
# Eight processes solving the same model on one empty cache all succeed,
# give the same V, and leave exactly one valid entry (CPU backend; and the
# GPU compile path when NVRTC is available).  A bit flipped inside an entry
# is reported and rebuilt; `lcm cache` lists, describes and clears.
. "${BASH_SOURCE%/*}/common.sh"
work_dir cache-race
model=$SRC/models/mortality.lua
params=$SRC/models/mortality.params.lua

for i in 1 2 3 4 5 6 7 8; do
  "$LCM" solve "$model" --params "$params" --backend cpu --log-level progress --csv "$work/v$i.csv" 2> "$work/log$i" &
done
wait
for i in 1 2 3 4 5 6 7 8; do
  check "racer $i succeeded" "[ -s '$work/v$i.csv' ] && ! grep -q error '$work/log$i'"
  check "racer $i has the same V" "cmp -s '$work/v1.csv' '$work/v$i.csv'"
done
check "exactly one cpu entry" "[ \$(ls '$LCM_CACHE_DIR/cpu' | wc -l) -eq 1 ]"
check "no temporary files left" "[ -z \"\$(ls '$LCM_CACHE_DIR/cpu' | grep tmp)\" ]"
check "the entry is valid" "'$LCM' cache list | grep -q ' ok  mortality  float64\$'"

if "$LCM" compile "$SRC/models/tiny.lua" --arch sm_90 --log-level off 2>/dev/null; then
  rm -rf "$LCM_CACHE_DIR/cuda"
  for i in 1 2 3 4 5 6 7 8; do "$LCM" compile "$model" --arch sm_90 --log-level progress 2> "$work/c$i" & done
  wait
  check "eight GPU compiles leave one entry" "[ \$(ls '$LCM_CACHE_DIR/cuda' | wc -l) -eq 1 ]"
  check "every GPU compile succeeded" "! grep -l error '$work'/c? >/dev/null"
fi

# flip one bit in the middle of the cpu entry
entry=$(ls "$LCM_CACHE_DIR"/cpu/*.lcmc)
size=$(stat -c %s "$entry"); off=$((size / 2))
byte=$(dd if="$entry" bs=1 skip=$off count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$entry" bs=1 seek=$off conv=notrunc 2>/dev/null
check "lcm cache list sees the damage" "'$LCM' cache list | grep -q 'checksum mismatch'"
"$LCM" solve "$model" --params "$params" --backend cpu --log-level progress --csv "$work/after.csv" 2> "$work/flip"
check "the flipped entry is reported" "grep -q 'is corrupt (checksum mismatch)' '$work/flip'"
check "and rebuilt" "grep -q 'compiled the cpu solver' '$work/flip'"
check "with the same V" "cmp -s '$work/v1.csv' '$work/after.csv'"

"$LCM" cache info > "$work/info"
check "cache info names the location" "grep -q \"location   $LCM_CACHE_DIR\" '$work/info'"
"$LCM" cache clear > "$work/clear"
check "cache clear removes the entries" "grep -q 'removed' '$work/clear' && [ -z \"\$(ls '$LCM_CACHE_DIR' 2>/dev/null)\" ]"
check "an empty cache lists nothing" "'$LCM' cache list | grep -q 'no entries'"
rm -rf "$work"
exit $fail
