#!/bin/bash
# bench/kernel_profile.sh on precautionary savings (1000 x 1000, one
# thread): it runs, the shares of the kernel's samples of the functions it
# lists add up to between half and all of them, it names the generated
# kernel's functions, and each line it names is a line of the kernels.c it
# kept.  Skipped (77) where perf or addr2line
# is missing or perf cannot record (a container without perf events).
. "${BASH_SOURCE%/*}/common.sh"

for tool in perf addr2line; do
  command -v "$tool" >/dev/null 2>&1 || { echo "skip: $tool is not installed"; exit 77; }
done
work=$(mktemp -d "$BIN/kernel-profile-XXXXXX")
perf record -q -o "$work/probe.data" true >/dev/null 2>&1 || { echo "skip: perf cannot record here"; rm -rf "$work"; exit 77; }

out=$(PROFILE_DIR="$work/p" sh "$SRC/bench/kernel_profile.sh" "$(dirname "$(dirname "$LCM")")" \
  "$SRC/models/precautionary_savings.lua" --params "$SRC/models/precautionary_savings.params.lua" \
  -D wealth_points=1000 -D consumption_points=1000 --threads 1 2>&1)
rc=$?
echo "$out"
check "the script exits 0" '[ $rc -eq 0 ]'
check "it reports the kernel's share" 'echo "$out" | grep -q "^kernel: [0-9.]*% of the process samples"'
functions=$(echo "$out" | sed -n '/^by function/,/^by line/p' | grep '%')
check "a function of the generated kernel" 'echo "$functions" | grep -q "lcm_k[0-9]*_alive"'
sum=$(echo "$functions" | awk '{ sub(/%/, "", $1); t += $1 } END { printf "%.0f", t }')
check "the eight largest functions' shares add up to at most 100% (got $sum)" '[ "$sum" -le 100 ] && [ "$sum" -ge 50 ]'
lines=$(wc -l < "$work/p/kernels.c")
bad=$(echo "$out" | sed -n '/^by line/,/^files/p' | grep '%' | awk -v n="$lines" '{ k = split($2, p, ":"); if (p[k] + 0 < 1 || p[k] + 0 > n) print }')
check "every line named is one of kernels.c's $lines lines" '[ -z "$bad" ]'

# a PROFILE_DIR that holds files is refused, its files untouched
mkdir -p "$work/full/cache" && echo keep > "$work/full/cache/mine" && echo keep > "$work/full/perf.data"
PROFILE_DIR="$work/full" sh "$SRC/bench/kernel_profile.sh" "$(dirname "$(dirname "$LCM")")" \
  "$SRC/models/tiny.lua" --params "$SRC/models/tiny.params.lua" > "$work/refused.out" 2>&1
rc=$?
check "a PROFILE_DIR with files is refused (exit 2)" '[ $rc -eq 2 ] && grep -q "is not an empty directory" "$work/refused.out"'
check "and its files are kept" '[ "$(cat "$work/full/cache/mine" "$work/full/perf.data")" = "$(printf "keep\nkeep")" ]'

rm -rf "$work"
exit $fail
