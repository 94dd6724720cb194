#!/bin/bash
# Grids in float32 (ir/grid.c, check_points; templates/prelude.h, lcm_frac):
# an open end of a piece rounds to the boundary's float, a cell of no width
# that a next state can land in; the kernel takes it at its first point, so
# V stays finite.  Grids whose points float32 cannot tell apart are refused.
. "${BASH_SOURCE%/*}/common.sh"
work_dir float32-grids

# next wealth is the float just below the open boundary 1000: in float32 the
# first piece's last point is 1000 too
sed -e 's/wealth = lcm.linspace{ start = 1, stop = 10, n_points = 10 }/wealth = lcm.piecewise_linspace{ pieces = { { "[-1000, 1000)", 5 }, { "[1000, 2000]", 5 } } }/' \
    -e 's/return consumption:le(wealth) end/return consumption:le(wealth + 2000) end/' \
    -e 's/return (1 + interest_rate) \* (wealth - consumption) + 1/return 999.9999389648438 + 0 * (wealth + consumption + interest_rate)/' \
    "$SRC/models/tiny.lua" > "$work/boundary.lua"
check "the model was edited" "grep -q '999.9999389648438' '$work/boundary.lua' && grep -q 'wealth + 2000' '$work/boundary.lua'"
for p in 64 32; do
  "$LCM" solve "$work/boundary.lua" --params "$SRC/models/tiny.params.lua" --backend cpu --precision $p \
    --csv "$work/v$p.csv" 2> "$work/err$p"
  check "float$p: solves at the piece boundary" "[ -s '$work/v$p.csv' ]"
  check "float$p: V finite everywhere" "! grep -qi 'nan\|inf' '$work/v$p.csv'"
done

# ten points between 1 and 1 + 1e-9: distinct in float64, one float in float32
sed 's/wealth = lcm.linspace{ start = 1, stop = 10, n_points = 10 }/wealth = lcm.irregular{ points = { 1, 1 + 1e-10, 1 + 2e-10, 1 + 1e-9 } }/' \
    "$SRC/models/tiny.lua" > "$work/narrow.lua"
"$LCM" solve "$work/narrow.lua" --params "$SRC/models/tiny.params.lua" --backend cpu --precision 32 \
  --csv "$work/narrow.csv" 2> "$work/narrow.err"
check "float32: points it cannot tell apart are refused (exit 3)" "[ $? -eq 3 ] && [ ! -e '$work/narrow.csv' ]"
check "and the message names the grid" "grep -q \"grid of 'wealth': points 2 and 3 are both 1 in float32\" '$work/narrow.err'"

rm -rf "$work"
exit $fail
