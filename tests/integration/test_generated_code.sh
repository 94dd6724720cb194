#!/bin/bash
# The generated kernels.c as text: it compiles without a warning under
# -Wall -Wextra -Werror (gcc at -O2, both precisions; clang when installed),
# has no `(void)x;` lines, names the model's parameters, states and grids,
# is indented by its blocks, and carries #line directives only with
# --line-directives (or LCM_LINE_DIRECTIVES=1), each pointing at the model
# line its code was traced from, with compiler messages landing there.
. "${BASH_SOURCE%/*}/common.sh"
work_dir generated-code
CC=${CC:-cc}
CLANG=$(command -v clang || true)

# Lines of the generated part (from the first kernel or step on) whose
# indentation is not four spaces per open block: block comments, directives
# and top-level lines (signatures) are skipped; `| term` continues a
# statement one step deeper.
misindented() {
  awk '
    /^\/\* ==== / { on = 1 }
    !on { next }
    incomment { if ($0 ~ /\*\//) incomment = 0; next }
    {
      line = $0
      gsub(/\/\*([^*]|\*[^\/])*\*\//, "", line)
      if (line ~ /\/\*/) { incomment = 1; sub(/\/\*.*/, "", line) }
      gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
      if (line ~ /^#/ || line ~ /^[ \t]*$/) next
      match(line, /^ */); lead = RLENGTH
      text = substr(line, lead + 1)
      want = 4 * depth
      if (text ~ /^}/) want -= 4
      else if (text ~ /^\| /) want += 4
      if (depth > 0 && lead != want) { print FILENAME ":" FNR ": " $0; if (++bad == 5) exit }
      depth += gsub(/{/, "{", line) - gsub(/}/, "}", line)
    }' "$1"
}

compiles() { # FILE COMPILER FLAGS...: no diagnostics at all
  local f=$1 cc=$2; shift 2
  local out
  out=$("$cc" -std=c11 -fopenmp -Wall -Wextra -Werror "$@" "$f" 2>&1) || { echo "$out" | head -20; return 1; }
  [ -z "$out" ] || { echo "$out" | head -20; return 1; }
}

n=0
while read -r model defines; do
  [ -n "$model" ] || continue
  name=$(basename "$model" .lua)${defines:+-${defines//[ =]/_}}
  args=()
  for d in $defines; do args+=(-D "$d"); done
  plain=$work/plain/$name lines=$work/lines/$name
  if ! "$LCMGEN" "$SRC/$model" -o "$plain" "${args[@]}" || ! "$LCMGEN" "$SRC/$model" -o "$lines" --line-directives "${args[@]}"; then
    echo "FAILED: lcmgen $model $defines"; fail=1; continue
  fi
  n=$((n + 1))
  for p in 64 32; do
    check "$name: gcc -O2 -Wall -Wextra, float$p" "compiles '$plain/kernels.c' '$CC' -O2 -c -o /dev/null -DLCM_PRECISION=$p"
  done
  check "$name with #line: gcc -Wall -Wextra" "compiles '$lines/kernels.c' '$CC' -fsyntax-only"
  if [ -n "$CLANG" ]; then
    check "$name: clang -Wall -Wextra" "compiles '$plain/kernels.c' '$CLANG' -fsyntax-only"
    check "$name with #line: clang -Wall -Wextra" "compiles '$lines/kernels.c' '$CLANG' -fsyntax-only"
  fi
  check "$name: no (void) lines" "! grep -q '(void)' '$plain/kernels.c'"
  check "$name: no #line without the option" "! grep -q '^#line' '$plain/kernels.c'"
  check "$name: indented by blocks" "[ -z \"\$(misindented '$plain/kernels.c')\" ] || { misindented '$plain/kernels.c'; false; }"
  check "$name: the same code with #line directives" \
    "cmp -s <(grep -v '^#line' '$lines/kernels.c') '$plain/kernels.c'"
  # each #line into the model is followed by a line whose comment names
  # that line (file:N); each #line back names the number of the line after it
  bad=$(awk -v base="$(basename "$model")" '
    want != "" { if (index($0, want " (") == 0) { print FNR ": " $0; exit } want = "" }
    /^#line [0-9]+ "/ {
      split($0, f, " ")
      file = substr($0, index($0, "\"") + 1); sub(/"$/, "", file)
      if (file == "kernels.c") { if (f[2] != FNR + 1) { print FNR ": " $0; exit } next }
      n = split(file, parts, "/"); want = parts[n] ":" f[2]
    }' "$lines/kernels.c")
  check "$name: #line directives point at their lines (${bad:-ok})" "[ -z '$bad' ]"
done <<EOF
models/tiny.lua
models/mortality.lua
models/mortality.lua n_periods=2
models/iskhakov_2017.lua
models/iskhakov_2017.lua taste_shocks=true
models/precautionary_savings.lua
models/precautionary_savings.lua shock=tauchen wealth_grid=log
models/precautionary_savings.lua shock=normal_gh wealth_grid=irregular wealth_batch=3
models/precautionary_savings.lua wealth_grid=runtime
models/precautionary_savings_health.lua
models/saving_choice.lua
models/saving_choice.lua income_batch=3 types=2
models/fvv_2018.lua
models/fvv_2018.lua fixed=true
models/mahler_yum_2024.lua
tests/models/aggregator.lua
tests/models/aggregator.lua aggregator=nonlinear
tests/models/action_terms.lua
tests/models/action_terms.lua indexed=true
tests/models/derivatives.lua
tests/models/age_grid.lua
tests/models/age_grid_spans.lua
tests/models/epstein_zin.lua
tests/models/epstein_zin.lua labor=true
tests/models/exact_division.lua
tests/models/long_labels.lua
tests/models/staged_loop.lua
tests/models/hoisted_terms.lua
tests/models/hoisted_terms.lua health=true
tests/models/hoisted_terms.lua extra=true
tests/models/hoisted_terms.lua middle=true
tests/models/cake_eating.lua
tests/models/cake_on_grid.lua
tests/models/grid_edges.lua
tests/models/piecewise.lua
tests/models/piecewise.lua kind=log
tests/models/sharded.lua
tests/models/sharded.lua axes=2
tests/models/sharded.lua splay=wealth
tests/models/taste_logit.lua
tests/models/taste_logit.lua scale_by_group=true
tests/models/egm_cake.lua
models/iskhakov_2017.lua solver=egm
models/iskhakov_2017.lua solver=egm taste_shocks=true
models/precautionary_savings.lua solver=egm
models/precautionary_savings.lua solver=egm shock=tauchen wealth_grid=log
models/precautionary_savings_health.lua solver=egm
tests/models/negm_cake.lua
models/durables.lua solver=negm a_points=6 p_points=4 n_points=4 d_points=5 savings_points=20
EOF
echo "$n models generated and compiled"

# the names of the model in mortality's kernels
k=$work/plain/mortality/kernels.c
check "a parameter indexed by states: named after them" \
  "grep -q 'const real p_survival_period_health = P\[[0-9]* + (lcm_index)period \* 2 + (lcm_index)s_health\];' '$k'"
check "a Markov row: named by its labels" "grep -q 'const real p_health_transition_health_bad = P\[' '$k'"
check "one name in two functions: named by its function" \
  "grep -q 'p_next_wealth__working_interest_rate = P\[' '$k' && grep -q 'p_next_wealth__retired_interest_rate = P\[' '$k'"
check "states and actions by name" "grep -q 'const real s_wealth = x\[2\];' '$k' && grep -q 'const real a_consumption = act1;' '$k'"
check "a grid read names its state" "grep -q 'const real act1 = G\[[0-9]* + i1\]; /\* consumption \*/' '$k'"
check "a next state's grid names its regime and state" "grep -q 'lcm_frac(.*); st\[0\] = 1; /\* retired.wealth \*/' '$k'"

# the code of utility (mortality.lua:53) lands on that line, whatever the path
l=$work/lines/mortality/kernels.c
line53=$(sed -n 53p "$SRC/models/mortality.lua")
check "mortality.lua:53 is the utility" "echo '$line53' | grep -q 'math.log(consumption)'"
check "the log of consumption comes after #line 53" \
  "grep -B1 '= LCM_LOG(a_consumption);' '$l' | head -1 | grep -qx '#line 53 \"$SRC/models/mortality.lua\"'"
# (every copy: the GPU's body computes it, the CPU's launch computes it once per action)
sed 's/= LCM_LOG(a_consumption);/= LCM_LOG(a_consumption @);/g' "$l" > "$work/broken.c"
"$CC" -std=c11 -fsyntax-only "$work/broken.c" > "$work/broken.log" 2>&1
check "a compile error in traced code names the model line" "grep -q '^$SRC/models/mortality.lua:53:[0-9]*: error' '$work/broken.log'"
# an error after a #line back to kernels.c names kernels.c and its true line
at=$(grep -n '^#line [0-9]* "kernels.c"' "$l" | head -1 | cut -d: -f1)
sed "$((at + 1))s/\$/ @/" "$l" > "$work/broken2.c"
"$CC" -std=c11 -fsyntax-only "$work/broken2.c" > "$work/broken2.log" 2>&1
check "a compile error after the model's lines names kernels.c" "grep -q '^kernels.c:$((at + 1)):[0-9]*: error' '$work/broken2.log'"

# the environment switch: the same text as the option, for lcmgen and lcm
LCM_LINE_DIRECTIVES=1 "$LCMGEN" "$SRC/models/mortality.lua" -o "$work/env"
check "LCM_LINE_DIRECTIVES=1 is --line-directives" "cmp -s '$work/env/kernels.c' '$l'"
LCM_LINE_DIRECTIVES=1 "$LCM" solve "$SRC/models/mortality.lua" --params "$SRC/models/mortality.params.lua" \
  --csv "$work/lines.csv" --log-level warning
"$LCM" solve "$SRC/models/mortality.lua" --params "$SRC/models/mortality.params.lua" --csv "$work/plain.csv" \
  --log-level warning
check "lcm solves alike with #line directives" "[ -s '$work/plain.csv' ] && cmp -s '$work/lines.csv' '$work/plain.csv'"
# NVRTC (when this lcm has the CUDA toolkit) takes the directives too
if LCM_LINE_DIRECTIVES=1 "$LCM" compile "$SRC/models/mortality.lua" --arch sm_90 > "$work/nvrtc" 2>&1; then
  echo "NVRTC compiled the kernels with #line directives"
elif ! grep -q "built without the CUDA toolkit\|NVRTC .* is not available" "$work/nvrtc"; then
  echo "FAILED: NVRTC with #line directives"; cat "$work/nvrtc"; fail=1
fi
rm -rf "$work"
exit $fail
