#!/bin/bash
# NVRTC compiles the kernels of every bundled and test model for sm_80 and
# sm_90 at both precisions (no GPU needed), and of variants that solve by
# the endogenous grid method, the entries land in the cache,
# a second compile is a cache hit, and a GPU newer than NVRTC gets PTX.
# Skipped (exit 77) when this lcm was built without the CUDA toolkit.
. "${BASH_SOURCE%/*}/common.sh"
work_dir cuda-compile
"$LCM" compile "$SRC/models/tiny.lua" --arch sm_90 > "$work/probe" 2>&1
if grep -q "built without the CUDA toolkit\|NVRTC .* is not available" "$work/probe"; then
  echo "skipped: $(tail -1 "$work/probe")"; rm -rf "$work"; exit 77
fi
n=0
for model in "$SRC"/models/*.lua "$SRC"/tests/models/*.lua; do
  case "$model" in *.params.lua|*.initial.lua) continue;; esac
  for arch in sm_80 sm_90; do
    for prec in 64 32; do
      if "$LCM" compile "$model" --arch $arch --precision $prec --log-level warning 2> "$work/log"; then
        n=$((n + 1))
      else
        echo "FAILED: $model $arch float$prec"; cat "$work/log"; fail=1
      fi
    done
  done
done
# models' variants that the loop above does not reach (their default options differ)
while read -r model defines; do
  args=()
  for d in $defines; do args+=(-D "$d"); done
  for prec in 64 32; do
    if "$LCM" compile "$SRC/$model" "${args[@]}" --arch sm_90 --precision $prec --log-level warning 2> "$work/log"; then
      n=$((n + 1))
    else
      echo "FAILED: $model $defines float$prec"; cat "$work/log"; fail=1
    fi
  done
done <<EOF
models/iskhakov_2017.lua solver=egm
models/iskhakov_2017.lua solver=egm taste_shocks=true
models/precautionary_savings.lua solver=egm shock=tauchen
models/precautionary_savings_health.lua solver=egm
tests/models/egm_cake.lua risk_aversion=2
tests/models/egm_cake.lua types=3 shard=true wealth_batch=30
models/durables.lua solver=negm
models/durables.lua solver=vfi_levels
EOF
entries=$(ls "$LCM_CACHE_DIR/cuda" | wc -l)
check "one cache entry per compile ($n compiles, $entries entries)" "[ $entries -eq $n ]"
"$LCM" compile "$SRC/models/mortality.lua" --arch sm_90 --log-level progress 2> "$work/again"
check "a second compile is a cache hit" "grep -q 'in the cache already' '$work/again'"
"$LCM" compile "$SRC/models/tiny.lua" --arch sm_999 --log-level progress 2> "$work/future"
check "a GPU newer than NVRTC gets PTX" "grep -q '(PTX)' '$work/future'"
# --backend cuda: without a usable GPU an error (exit 9) and no output; with one, a solve
"$LCM" solve "$SRC/models/tiny.lua" --params "$SRC/models/tiny.params.lua" --backend cuda --csv "$work/gpu.csv" 2> "$work/gpu"
rc=$?
if grep -q "needs an NVIDIA GPU" "$work/gpu"; then
  check "no GPU: exit 9" "[ $rc -eq 9 ]"
  check "no GPU: no output" "[ ! -e '$work/gpu.csv' ]"
else
  check "GPU: the solve succeeds" "[ $rc -eq 0 ] && [ -s '$work/gpu.csv' ]"
fi
echo "$n kernels compiled for sm_80 and sm_90"
rm -rf "$work"
exit $fail
