#!/bin/bash
# The progress line of lcm solve, simulate and run (issue 45): under a
# pseudo-terminal (script(1) from util-linux) a solve of a few seconds
# shows one line that is rewritten in place ("\r...ESC[K") with the period
# solved, the time taken and left, and gives way to the usual final line;
# a simulation's line names its batch of subjects.  Without a terminal
# nothing of it is printed: stderr is that of --no-progress byte for byte
# (the times in it aside), at the default level and at progress.
# --progress shows it anyway, --no-progress and --log-level warning hide it
# on a terminal.
. "${BASH_SOURCE%/*}/common.sh"
if ! command -v script > /dev/null; then
  echo "script (util-linux) is not installed: no pseudo-terminal to test under"
  exit 77
fi
work_dir progress-cli

# precautionary savings on a fine grid, one thread: about 3 s for 30
# periods on the 2-core VM (the line waits for the first second)
model=$SRC/models/precautionary_savings.lua
grid="-D n_periods=30 -D wealth_points=2000 -D consumption_points=1500 --backend cpu"
big="$grid --params $SRC/models/precautionary_savings.params.lua --threads 1"
"$LCM" compile "$model" $grid > /dev/null # once here, so that the runs below only solve

# Runs a command under a pseudo-terminal: its stdout and stderr, both the
# terminal's, into $1 (the terminal writes each "\n" as "\r\n").
on_tty() {
  local into=$1
  shift
  script -qec "$(printf '%q ' "$@")" /dev/null > "$into" < /dev/null
}

CR=$'\r' ESC=$'\e'
# The text after the last ESC[K of a file: what a terminal shows last, once
# the progress line was cleared.
after_last_clear() { local text; text=$(< "$1"); printf '%s' "${text##*${ESC}[K}"; }
# The drawings of the progress line in a file, one a line.
drawings() { tr '\r' '\n' < "$1" | grep -aE "^lcm: ($2)"; }

# The solve: the line appears and updates (two different period counts at
# least, each drawn from the start of the line and cleared to its end),
# then is cleared and the final line takes its place.
on_tty "$work/tty.out" "$LCM" solve "$model" $big --out "$work/tty.h5"
check "under a terminal the solve succeeds" "[ $? -eq 0 ] && [ -s '$work/tty.h5' ]"
drawings "$work/tty.out" solving > "$work/lines"
cat "$work/lines"
took=$(sed -n 's/.*solved model .* in \([0-9.]*\) s: wrote.*/\1/p' "$work/tty.out")
if [ -n "$took" ] && awk -v s="$took" 'BEGIN { exit !(s + 0 < 1.5) }'; then
  echo "the solve took $took s: too quick on this machine to test the progress line, which waits for a second"
  rm -rf "$work"
  exit 77
fi
shape="^lcm: solving 'precautionary_savings': period [0-9]+ of 30 \(age [0-9]+\), [0-9.]+ s, about [0-9.]+ s left${ESC}\[K$"
check "the progress line appears, drawn from the start of the line" "[ -s '$work/lines' ] && grep -qF \"\${CR}lcm: solving\" '$work/tty.out'"
check "each drawing says the period, the time taken and left, and clears the rest" "! grep -avE \"\$shape\" '$work/lines'"
periods() { sed 's/.*period \([0-9]*\) of.*/\1/' "$1"; }
check "it updates: two period counts or more" "[ \$(periods '$work/lines' | sort -u | wc -l) -ge 2 ]"
check "the period counts rise" "periods '$work/lines' | sort -c -n"
final="lcm: solved model 'precautionary_savings' on cpu \(float64\) in [0-9.]+ s: wrote $work/tty.h5${CR}$"
check "it ends with the final line" "[[ \"\$(after_last_clear '$work/tty.out')\" =~ ^\$final ]]"

# simulate: the solve's line, then the simulation's with its batch of subjects
awk 'BEGIN { print "regime,age,wealth"; for (i = 0; i < 6000; ++i) printf "alive,20,%.2f\n", 1 + (i % 190) / 10 }' \
  > "$work/many.initial.csv"
on_tty "$work/sim.out" "$LCM" simulate "$model" $big --initial "$work/many.initial.csv" --subject-batch-size 2000 \
  --csv "$work/panel.csv"
check "simulate under a terminal succeeds" "[ $? -eq 0 ] && [ -s '$work/panel.csv' ]"
drawings "$work/sim.out" simulating > "$work/sim-lines"
tail -2 "$work/sim-lines"
check "the solve's line comes first" "drawings '$work/sim.out' 'solving|simulating' | head -1 | grep -q '^lcm: solving'"
check "the simulation's line names its batch of subjects" \
  "grep -qE \"^lcm: simulating 'precautionary_savings': subjects [0-9]+ to [0-9]+ of 6000, period [0-9]+ of 30, \" '$work/sim-lines'"
check "simulate ends with its final line" \
  "[[ \"\$(after_last_clear '$work/sim.out')\" =~ ^'lcm: simulated 6000 subjects of model' ]]"

# a terminal, but --no-progress or a quiet level: no line
on_tty "$work/none.out" "$LCM" solve "$model" $big --out "$work/none.h5" --no-progress
check "--no-progress: no line on a terminal" "! grep -aq 'solving' '$work/none.out' && grep -aq '^lcm: solved model' '$work/none.out'"
on_tty "$work/quiet.out" "$LCM" solve "$model" $big --out "$work/quiet.h5" --log-level warning
check "--log-level warning: nothing on a terminal" "[ ! -s '$work/quiet.out' ]"
on_tty "$work/twice.out" "$LCM" solve "$model" $big --out "$work/twice.h5" --progress --no-progress
check "--progress with --no-progress is a usage error" \
  "[ $? -eq 2 ] && grep -aq 'give one of --progress and --no-progress' '$work/twice.out'"

# no terminal: stderr as with --no-progress, byte for byte once the times are
# set aside, with no carriage return or escape in it; --progress forces the line
same_times() { sed -E 's/[0-9]+\.[0-9]+ s/T s/g' "$1"; }
for level in info progress; do
  "$LCM" solve "$model" $big --out "$work/plain-$level.h5" --log-level $level 2> "$work/plain-$level.err"
  "$LCM" solve "$model" $big --out "$work/plain-$level.h5" --log-level $level --no-progress 2> "$work/off-$level.err"
  check "no terminal, level $level: stderr is that of --no-progress" \
    "cmp <(same_times '$work/plain-$level.err') <(same_times '$work/off-$level.err')"
  check "no terminal, level $level: no carriage return or escape" "! grep -aq '[$CR$ESC]' '$work/plain-$level.err'"
done
check "no terminal, level info: the one final line" "[ \$(wc -l < '$work/plain-info.err') -eq 1 ]"
check "no terminal, level progress: a line per period" \
  "[ \$(grep -c \"^lcm: solving 'precautionary_savings': period\" '$work/plain-progress.err') -eq 30 ]"
"$LCM" solve "$model" $big --out "$work/forced.h5" --progress 2> "$work/forced.err"
check "--progress without a terminal draws the line" "grep -aqF \"\${CR}lcm: solving 'precautionary_savings': period\" '$work/forced.err'"
check "... and clears it for the final line" "grep -aqF \"\${CR}\${ESC}[Klcm: solved model\" '$work/forced.err'"

rm -rf "$work"
exit $fail
