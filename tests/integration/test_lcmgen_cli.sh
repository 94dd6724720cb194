#!/bin/bash
# lcmgen as a build step: outputs, depfile with every loaded Lua file,
# unchanged outputs left untouched, generated directories solve exactly like
# the .lua file, and a tampered output is refused.
. "${BASH_SOURCE%/*}/common.sh"
work_dir lcmgen-cli

"$LCMGEN" "$SRC/models/tiny.lua" -o "$work/gen" -M "$work/gen.d"
check "kernels.c written" "[ -s '$work/gen/kernels.c' ]"
check "manifest written" "head -1 '$work/gen/manifest.lcm' | grep -q '^lcm-manifest 5'"
check "depfile names the outputs and the model" "grep -q 'kernels.c:' '$work/gen.d' && grep -q 'models/tiny.lua' '$work/gen.d'"
before=$(stat -c %Y.%N "$work/gen/kernels.c" "$work/gen/manifest.lcm" | md5sum)
sleep 1
"$LCMGEN" "$SRC/models/tiny.lua" -o "$work/gen"
after=$(stat -c %Y.%N "$work/gen/kernels.c" "$work/gen/manifest.lcm" | md5sum)
check "regenerating an unchanged model leaves the files alone" "[ '$before' = '$after' ]"
# a new depfile beside unchanged outputs: the one file written, the others
# compared under the commit's lock and left as they were
"$LCMGEN" "$SRC/models/tiny.lua" -o "$work/gen" -M "$work/other.d"
after=$(stat -c %Y.%N "$work/gen/kernels.c" "$work/gen/manifest.lcm" | md5sum)
check "a new depfile alone leaves unchanged outputs alone" "[ -s '$work/other.d' ] && [ '$before' = '$after' ]"
check "no temporary left in the output folder" "[ \$(ls -A '$work/gen' | wc -l) = 2 ]"

# a model split over files: require and dofile are in the depfile
mkdir -p "$work/split"
cat > "$work/split/grids.lua" <<'LUA'
local lcm = require("lcm")
return { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 4 } }
LUA
cat > "$work/split/utility.lua" <<'LUA'
return function(wealth) return math.log(wealth) end
LUA
cat > "$work/split/model.lua" <<'LUA'
local lcm = require("lcm")
local grids = require("grids")
return lcm.model{
  ages = lcm.ages{ start = 0, stop = 1 },
  regimes = { only = lcm.regime{ terminal = true, states = { wealth = grids.wealth },
    functions = { utility = dofile("utility.lua") } } },
}
LUA
"$LCMGEN" "$work/split/model.lua" -o "$work/split/gen" -M "$work/split/gen.d" 2> "$work/split.log"
check "split model generates" "[ -s '$work/split/gen/kernels.c' ]"
check "depfile lists required modules" "grep -q 'split/grids.lua' '$work/split/gen.d'"
check "depfile lists dofile'd files" "grep -q 'split/utility.lua' '$work/split/gen.d'"

# modules in subfolders (require "a.b") and data files read through the
# sandbox (lcm.read_table: a header, comments, CRLF and CR line ends, mixed
# separators); the data files are in the depfile too
mkdir -p "$work/split/data" "$work/split/lib"
printf '# wealth grid bounds\r\nstart, stop; n\r\n1 2 3\r0.5\t12.5 6\n' > "$work/split/data/bounds.txt"
cat > "$work/split/lib/grids.lua" <<'LUA'
local lcm = require("lcm")
local b = lcm.read_table("data/bounds.txt")
assert(#b.rows == 2 and b.header[3] == "n" and b.rows[1][3] == 3, "rows and header")
return { wealth = lcm.linspace{ start = b.columns.start[2], stop = b.columns.stop[2], n_points = b.columns.n[2] } }
LUA
sed 's/require("grids")/require("lib.grids")/' "$work/split/model.lua" > "$work/split/data_model.lua"
"$LCMGEN" "$work/split/data_model.lua" -o "$work/split/gen2" -M "$work/split/gen2.d" 2> "$work/split2.log"
check "a grid read from a data file" "grep -q '^state wealth lin n 6 start 0.5 stop 12.5$' '$work/split/gen2/manifest.lcm'"
check "depfile lists modules in subfolders" "grep -q 'split/lib/grids.lua' '$work/split/gen2.d'"
check "depfile lists data files" "grep -q 'split/data/bounds.txt' '$work/split/gen2.d'"
printf 'local base = dofile("base.lua")\nbase.interest_rate = 0.04\nreturn base\n' > "$work/split/p.lua"
printf 'return { discount_factor = 0.95, risk_aversion = 2 }\n' > "$work/split/base.lua"
"$LCM" solve "$SRC/models/tiny.lua" --params "$work/split/p.lua" --csv "$work/split/v1.csv" 2> /dev/null
"$LCM" solve "$SRC/models/tiny.lua" --params "$SRC/models/tiny.params.lua" --set interest_rate=0.04 --csv "$work/split/v2.csv" 2> /dev/null
check "a params file dofile's a file beside it" "cmp -s '$work/split/v1.csv' '$work/split/v2.csv'"
# the depfile read by real make, for files whose names hold what Make
# reads specially: a space, '$', ':', '#' and '%' (the model's folder), a
# backslash, '=' and the wildcards * ? [ (the output folder).  Make must see
# the model and the module it requires, rebuild when one changes, and not
# stop when one is gone.  The Makefile's own rule names the outputs as the
# depfile's first line does.
if ! command -v make > /dev/null; then
  echo "FAILED: make is not installed (scripts/deps.sh installs it)"; fail=1
else
  odd="$work/odd dir \$HOME:x#1%"
  gen="$work/out\\ =*?[1]\\"
  mkdir -p "$odd" "$work/out\\x" # a folder the wildcards in $gen would match
  cp "$work/split/grids.lua" "$odd/grids.lua"
  sed 's|dofile("utility.lua")|function(wealth) return wealth end|' "$work/split/model.lua" > "$odd/model.lua"
  "$LCMGEN" "$odd/model.lua" -o "$gen" -M "$work/odd.d"
  check "lcmgen writes a depfile for odd paths" "[ -s '$work/odd.d' ]"
  { printf 'all: '; sed -n '1s/: \\$//p' "$work/odd.d"; cat <<'MAKE'; } > "$work/Makefile"
include odd.d
%/manifest.lcm %/kernels.c:
	"$$LCMGEN" "$$MODEL" -o "$$GEN" -M odd.d
	touch "$$GEN/manifest.lcm" "$$GEN/kernels.c"
	echo regenerated >> log
MAKE
  export LCMGEN MODEL="$odd/model.lua" GEN="$gen"
  touch -d '2000-01-01' "$odd/model.lua" "$odd/grids.lua"
  mk() { (cd "$work" && make -r "$@" > /dev/null 2> "$work/make.err") || { cat "$work/make.err"; return 1; }; }
  regenerated() { [ -f "$work/log" ] && wc -l < "$work/log" || echo 0; }
  mk
  check "make: the fresh outputs are up to date" "[ \$(regenerated) = 0 ]"
  # a file touched within the clock tick of the outputs' last touch is not newer
  # to make: the outputs go back 2 seconds first
  age_outputs() { touch -r "$gen/manifest.lcm" -d '-2 seconds' "$gen/manifest.lcm" "$gen/kernels.c"; }
  age_outputs && touch "$odd/grids.lua"
  mk
  check "make: a touched module rebuilds" "[ \$(regenerated) = 1 ]"
  age_outputs && touch "$odd/model.lua"
  mk
  check "make: a touched model rebuilds" "[ \$(regenerated) = 2 ]"
  mk
  check "make: then nothing to do" "[ \$(regenerated) = 2 ]"
  mv "$odd/grids.lua" "$work/grids.lua"
  check "make: a module gone is not an error" "mk -n"
  mv "$work/grids.lua" "$odd/grids.lua"
fi

# a generated directory solves exactly like the .lua file
"$LCM" solve "$work/gen" --params "$SRC/models/tiny.params.lua" --csv "$work/dir.csv" 2>/dev/null
"$LCM" solve "$SRC/models/tiny.lua" --params "$SRC/models/tiny.params.lua" --csv "$work/lua.csv" 2>/dev/null
check "directory and .lua give the same V" "cmp -s '$work/dir.csv' '$work/lua.csv'"

# options are baked in by lcmgen -D
"$LCMGEN" "$SRC/models/iskhakov_2017.lua" -D n_periods=4 -o "$work/isk4"
check "lcmgen -D bakes the option" "grep -q 'option n_periods \"4\"' '$work/isk4/manifest.lcm' && grep -q '^ages 4 ' '$work/isk4/manifest.lcm'"

# --plan: how each kernel solves (the staged solve, or grid search and why); a
# build step says nothing of it otherwise
"$LCMGEN" "$SRC/models/mahler_yum_2024.lua" --plan > "$work/plan.my" 2> "$work/plan.err"
check "lcmgen --plan: Mahler & Yum's effort, then labor supply, maximised first" \
  "grep -q \"^lcm_k0_alive (regime 'alive'): staged solve: 'effort' maximised first into a table of 1,600,000 entries, then 'labor_supply' maximised next\" '$work/plan.my'"
check "lcmgen --plan: the work it saves" "grep -q '9,600,000,000 -> 144,300,000 evaluations a period (66.5x fewer)' '$work/plan.my'"
check "lcmgen --plan: a line per kernel, nothing on stderr" "[ \$(wc -l < '$work/plan.my') -eq 3 ] && [ ! -s '$work/plan.err' ]"
"$LCMGEN" "$SRC/tests/models/staged.lua" -D variant=linked --plan > "$work/plan.linked"
check "lcmgen --plan says why not staged" \
  "grep -q \"^lcm_k0_alive (regime 'alive'): grid search, 'care' not maximised first: its constraints read wealth too\" '$work/plan.linked'"
LCM_NO_ELIMINATION=1 "$LCMGEN" "$SRC/models/mahler_yum_2024.lua" --plan > "$work/plan.off"
check "lcmgen --plan under LCM_NO_ELIMINATION=1" "grep -q 'grid search, not staged: switched off (LCM_NO_ELIMINATION=1' '$work/plan.off'"
"$LCMGEN" "$SRC/models/iskhakov_2017.lua" -D solver=egm --plan > "$work/plan.egm"
check "lcmgen --plan: DC-EGM with its endogenous grid" \
  "grep -q \"^lcm_k0_working_life (regime 'working_life'): DC-EGM on 'wealth' for 'consumption', each choice of 'labor_supply': an endogenous grid of 4,000 entries (1 row x 2 choices x 2,000 savings points)\$\" '$work/plan.egm'"
check "lcmgen --plan: EGM where no next period carries wealth" \
  "grep -q \"^lcm_k3_retirement (regime 'retirement'): EGM on 'wealth' for 'consumption': no next period carries 'wealth', so only the budget's corner\$\" '$work/plan.egm'"
"$LCMGEN" "$SRC/models/durables.lua" -D solver=negm -D a_points=20 -D p_points=10 -D n_points=10 -D d_points=20 --plan > "$work/plan.negm"
check "lcmgen --plan: nested EGM, its rows, less the choices a constraint rules out and the shared points, the expected V" \
  "grep -q \"^lcm_k0_alive (regime 'alive'): nested EGM on 'a_lag' for 'c', each choice of 'adjust', 'd_new': an endogenous grid of 150,000 entries (500 rows x 40 choices x 100 savings points, less the choices 'keep_once' rules out and the points of 'n' adjust=adjust shares), the expected next V precomputed\$\" '$work/plan.negm'"
"$LCMGEN" "$SRC/models/mahler_yum_2024.lua" -o "$work/my" > "$work/my.out" 2>&1
check "lcmgen -o says nothing on success" "[ ! -s '$work/my.out' ]"

# generation warnings: lcmgen prints them; lcm logs them at warning level
sed 's/n_points = 20 }/n_points = 20, batch_size = 5 }/' "$SRC/models/tiny.lua" > "$work/splayed.lua"
"$LCMGEN" "$work/splayed.lua" -o "$work/splayed" 2> "$work/warn1"
check "lcmgen prints warnings" "grep -q \"^lcmgen: warning: .*batch_size on the action 'consumption' has no effect\" '$work/warn1'"
"$LCM" solve "$work/splayed.lua" --params "$SRC/models/tiny.params.lua" --csv "$work/s.csv" 2> "$work/warn2"
check "lcm logs them" "grep -q '^lcm: warning: .*batch_size' '$work/warn2'"
"$LCM" solve "$work/splayed.lua" --params "$SRC/models/tiny.params.lua" --csv "$work/s.csv" --log-level off 2> "$work/warn3"
check "--log-level off silences them" "[ ! -s '$work/warn3' ]"

# a parameter near a state, action or function name: a warning for a likely
# typo (two edits of a long name, one of a short one), none for a short name
# two edits away ('dbar' beside the function 'dur')
sed 's/return consumption ^ (1 - risk_aversion) \/ (1 - risk_aversion)/return consumptoin ^ 0 * consumption ^ (1 - risk_aversion) \/ (1 - risk_aversion)/; s/utility = function(consumption, risk_aversion)/utility = function(consumption, consumptoin, risk_aversion)/' \
  "$SRC/models/tiny.lua" > "$work/typo.lua"
"$LCMGEN" "$work/typo.lua" -o "$work/typo" 2> "$work/warn.typo"
check "a parameter two edits from an action warns" \
  "grep -q \"'consumptoin' is not a state, action or function, so it is a parameter; did you mean the action 'consumption'?\" '$work/warn.typo'"
sed 's/utility = function(consumption, risk_aversion)/dur = function(consumption) return consumption end,\n    utility = function(consumption, dbar, risk_aversion)/; s/return consumption ^ (1 - risk_aversion) \/ (1 - risk_aversion)/return dbar * consumption ^ (1 - risk_aversion) \/ (1 - risk_aversion)/' \
  "$SRC/models/tiny.lua" > "$work/dbar.lua"
"$LCMGEN" "$work/dbar.lua" -o "$work/dbar" 2> "$work/warn.dbar"
check "a short parameter two edits from a function does not" "[ -s '$work/dbar/kernels.c' ] && [ ! -s '$work/warn.dbar' ]"

# warnings carry text from outside (here the model's file name, which holds
# an escape sequence): both commands print its control characters escaped
esc="$work/x"$'\e]0;title\a'".lua"
cp "$work/splayed.lua" "$esc"
"$LCMGEN" "$esc" -o "$work/esc" 2> "$work/warn4"
check "lcmgen escapes control characters in warnings" "grep -qF 'x\x1b]0;title\x07.lua' '$work/warn4' && ! grep -q $'\e' '$work/warn4'"
"$LCM" solve "$esc" --params "$SRC/models/tiny.params.lua" --csv "$work/s.csv" --log-level warning 2> "$work/warn5"
check "lcm escapes control characters in warnings" "grep -qF 'x\x1b]0;title\x07.lua' '$work/warn5' && ! grep -q $'\e' '$work/warn5'"

# tampering is refused
echo "/* edited */" >> "$work/gen/kernels.c"
"$LCM" solve "$work/gen" --params "$SRC/models/tiny.params.lua" --csv "$work/x.csv" 2> "$work/tamper.log"; rc=$?
check "tampered kernels.c refused" "[ $rc -ne 0 ] && grep -q 'does not match manifest' '$work/tamper.log'"
check "no output after a refusal" "[ ! -e '$work/x.csv' ]"

# a file as the lua program reads one: a UTF-8 byte order mark and a #! line
# are skipped, and the lines keep their numbers
{ printf '\xef\xbb\xbf#!/usr/bin/env lua\n'; cat "$SRC/models/tiny.lua"; } > "$work/bom.lua"
{ printf '\xef\xbb\xbf'; cat "$SRC/models/tiny.params.lua"; } > "$work/bom.params.lua"
"$LCM" solve "$work/bom.lua" --params "$work/bom.params.lua" --backend cpu --csv "$work/bom.csv" 2> /dev/null
"$LCM" solve "$SRC/models/tiny.lua" --params "$SRC/models/tiny.params.lua" --backend cpu --csv "$work/plain.csv" 2> /dev/null
check "a byte order mark and a #! line are skipped" "cmp -s '$work/bom.csv' '$work/plain.csv'"
printf '#!/usr/bin/env lua\nerror("on line 2")\n' > "$work/line.lua"
"$LCMGEN" "$work/line.lua" -o "$work/line" 2> "$work/line.err"
check "after a #! line the lines keep their numbers" "grep -q 'line.lua:2: on line 2' '$work/line.err'"

rm -rf "$work"
exit $fail
