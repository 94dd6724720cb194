#!/bin/bash
# --initial FILE.lua: the columns written as Lua lists give the panel of the
# same subjects in CSV byte for byte (mortality: labels, codes, numbers);
# a function(n) gets --subjects (default 1000) and equals the CSV of the
# subjects it makes; a function drawing with math.random from a data file
# beside it (lcm.read_table) gives the same panel on every run and batch
# size; lcm run finds MODEL.initial.lua.
. "${BASH_SOURCE%/*}/common.sh"
work_dir initial-lua
cd "$work"

# CSV -> Lua lists: a cell that is a number stays a number, else a string
csv_to_lua() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; n = NF; next }
    { for (i = 1; i <= n; i++) v[i] = v[i] (NR > 2 ? ", " : "") ($i ~ /^-?[0-9.]+$/ ? $i : "\"" $i "\"") }
    END { print "return {"; for (i = 1; i <= n; i++) print "  " h[i] " = { " v[i] " },"; print "}" }' "$1"
}

m=$SRC/models/mortality
# patience and health as codes in some rows, labels in others
sed '3s/,patient,good,/,0,1,/; 5s/,impatient,bad,/,1,0,/' "$m.initial.csv" > mixed.csv
csv_to_lua mixed.csv > mixed.lua
check "the Lua file has codes and labels" "grep -q 'patience = { \"patient\", 0, \"patient\", 1,' mixed.lua"
args="--params $m.params.lua --seed 3 --log-level warning"
# cpu (auto would take a GPU where there is one), then the interpreter,
# whose V agrees with the cpu's to rounding only (the cpu's solve reads the
# expected next V of the health state, docs/internals.md): each byte for byte
"$LCM" simulate "$m.lua" $args --initial mixed.csv --backend cpu --csv csv.csv
"$LCM" simulate "$m.lua" $args --initial mixed.lua --backend cpu --csv lua.csv
check "Lua columns: the panel of the CSV" "[ -s csv.csv ] && cmp -s csv.csv lua.csv"
"$LCM" simulate "$m.lua" $args --initial mixed.csv --backend interp --csv csv-interp.csv
"$LCM" simulate "$m.lua" $args --initial mixed.lua --subject-batch-size 7 --backend interp --csv lua7.csv
check "Lua columns: the same panel on interp, 7 at a time" "[ -s csv-interp.csv ] && cmp -s csv-interp.csv lua7.csv"

# a function of n: wealth 1, 2, ..., n
t=$SRC/models/tiny
cat > f.lua <<'LUA'
return function(n)
  local c = { regime = {}, age = {}, wealth = {} }
  for i = 1, n do c.regime[i], c.age[i], c.wealth[i] = "alive", 0, i end
  return c
end
LUA
printf 'regime,age,wealth\nalive,0,1\nalive,0,2\nalive,0,3\n' > three.csv
"$LCM" simulate "$t.lua" --params "$t.params.lua" --log-level warning --initial f.lua --subjects 3 --csv f3.csv
"$LCM" simulate "$t.lua" --params "$t.params.lua" --log-level warning --initial three.csv --csv three.out.csv
check "function(n) with --subjects 3: the panel of the 3 subjects in CSV" "[ -s f3.csv ] && cmp -s f3.csv three.out.csv"
"$LCM" simulate "$t.lua" --params "$t.params.lua" --log-level warning --initial f.lua --csv f.csv
check "function(n) without --subjects: 1000 subjects" "[ \"\$(tail -1 f.csv | cut -d, -f1)\" = 999 ]"

# types drawn with math.random (seeded 0) from shares in a data file beside it
mkdir data
printf 'type share wealth\n0 0.25 2\n1 0.75 8\n' > data/types.txt
cat > drawn.lua <<'LUA'
local lcm = require("lcm")
local types = lcm.read_table("data/types.txt").columns
return function(n)
  local c = { regime = {}, age = {}, wealth = {} }
  for i = 1, n do
    local k = math.random() < types.share[1] and 1 or 2
    c.regime[i], c.age[i], c.wealth[i] = "alive", 0, types.wealth[k]
  end
  return c
end
LUA
"$LCM" simulate "$t.lua" --params "$t.params.lua" --log-level warning --initial drawn.lua --subjects 200 --csv d1.csv
"$LCM" simulate "$t.lua" --params "$t.params.lua" --log-level warning --initial drawn.lua --subjects 200 \
  --subject-batch-size 13 --csv d2.csv
check "drawn subjects: the same panel every run" "[ -s d1.csv ] && cmp -s d1.csv d2.csv"
starts=$(awk -F, 'NR > 1 && $2 == 0 { print $6 }' d1.csv | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
check "drawn subjects start at the data file's wealth levels, both drawn ($starts)" \
  "echo '$starts' | grep -Eq '^2:[0-9]+ 8:[0-9]+ \$'"

# lcm run: MODEL.initial.lua beside the model
cp "$t.lua" "$t.params.lua" .
csv_to_lua "$t.initial.csv" > tiny.initial.lua
"$LCM" run tiny.lua --out-dir r 2> run.err
"$LCM" simulate tiny.lua --params tiny.params.lua --initial "$t.initial.csv" --log-level warning --csv want.csv
check "lcm run uses tiny.initial.lua" "grep -q 'solved and simulated 100 subjects' run.err && cmp -s r/tiny.panel.csv want.csv"

cd / && rm -rf "$work"
exit $fail
