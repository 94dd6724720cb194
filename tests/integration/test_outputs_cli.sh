#!/bin/bash
# How lcm writes its outputs (runtime/io/output.c, ir/tempfile.c): '-' is
# standard output for a CSV; temporaries are created under unguessable names,
# so a symbolic link planted where the old NAME.tmp.PID went is not followed;
# and a run interrupted by SIGINT, SIGTERM, SIGHUP, SIGPIPE or SIGXFSZ (a
# file size limit) while its outputs are being written leaves no temporary
# and no output behind, keeps the earlier file, and ends with the signal's
# usual status.
#
# The interruptions are made deterministic with a FIFO as standard output:
# the panel CSV goes there last, after the HDF5 panel is a finished temporary
# held back for the commit; reading its first line proves lcm got that far,
# and not reading on blocks lcm once the pipe is full (the CSV is some
# 350 KB, the pipe holds 64 KB), so the signal always finds the temporary.
. "${BASH_SOURCE%/*}/common.sh"

work=$(mktemp -d "$BIN/outputs-cli-XXXXXX")
cd "$work"
M=$SRC/models
solve="$LCM solve $M/tiny.lua --params $M/tiny.params.lua --log-level warning"
sim="$LCM simulate $M/precautionary_savings.lua --params $M/precautionary_savings.params.lua
  --initial $M/precautionary_savings.initial.csv --log-level warning"

# '-': the CSV on standard output, the same bytes as in a file, no file named '-'
$solve --csv v.csv --out v.h5
$solve --csv - > stdout.csv
check "solve --csv - writes the CSV to standard output" "cmp -s v.csv stdout.csv"
$sim --csv p.csv
$sim --csv - --out p.h5 > stdout.csv
check "simulate --csv - writes the panel to standard output" "cmp -s p.csv stdout.csv"
check "no file named '-'" "[ ! -e ./- ]"

# symbolic links planted at the names the temporaries used to have (NAME.tmp.PID:
# the subshell's pid is lcm's after exec) are neither followed nor removed
echo victim > victim
mkdir gen
(echo $BASHPID > pid; for name in planted.csv planted.h5; do ln -s victim "$name.tmp.$BASHPID"; done
 exec $solve --csv planted.csv --out planted.h5)
pid=$(cat pid)
check "solve wrote through no planted link" "[ \"\$(cat victim)\" = victim ] && cmp -s v.csv planted.csv"
check "the planted links are still there" "[ -L planted.csv.tmp.$pid ] && [ -L planted.h5.tmp.$pid ]"
(echo $BASHPID > pid; for name in kernels.c manifest.lcm; do ln -s ../victim "gen/$name.tmp.$BASHPID"; done
 exec "$LCMGEN" "$M/tiny.lua" -o gen)
pid=$(cat pid)
check "lcmgen wrote through no planted link" "[ \"\$(cat victim)\" = victim ] && [ -s gen/kernels.c ] && [ ! -L gen/kernels.c ]"
check "lcmgen left the planted links" "[ -L gen/kernels.c.tmp.$pid ] && [ -L gen/manifest.lcm.tmp.$pid ]"
rm -rf planted.* gen

# interrupted while writing: the signal's status, no temporary, the earlier panel kept
set -m # job control: a background job takes SIGINT (else bash has it ignore it)
mkfifo pipe
interrupt() { # $1: signal name, or PIPE to stop reading; $2: the status expected
  echo "earlier panel" > p.h5
  $sim --out p.h5 --csv - > pipe 2> err &
  local pid=$! header
  exec 3< pipe
  read -r header <&3
  check "SIG$1: the CSV has begun" "[ \"\${header%%,*}\" = subject_id ]"
  check "SIG$1: the HDF5 panel waits as a temporary" "[ \$(ls p.h5.tmp.* 2>/dev/null | wc -l) = 1 ]"
  if [ "$1" = PIPE ]; then exec 3<&-; else kill -"$1" $pid; fi
  wait $pid
  local status=$?
  exec 3<&- 2>/dev/null
  check "SIG$1: lcm ends with status $2 (got $status)" "[ $status = $2 ]"
  check "SIG$1: no temporary remains" "[ -z \"\$(ls | grep '\\.tmp\\.')\" ]"
  check "SIG$1: the earlier panel is kept" "[ \"\$(cat p.h5)\" = 'earlier panel' ]"
}
interrupt INT 130
interrupt TERM 143
interrupt HUP 129
interrupt PIPE 141
set +m

# a file size limit (SIGXFSZ, not ignored) while the CSV is written after the
# HDF5 (mortality's V: ~55 KiB in HDF5, ~176 KiB as CSV)
echo "earlier V" > v.h5
(ulimit -f 100; exec $LCM solve $M/mortality.lua --params $M/mortality.params.lua --backend interp \
  --log-level warning --out v.h5 --csv big.csv) 2> /dev/null
status=$?
check "SIGXFSZ: lcm ends with status 153 (got $status)" "[ $status = 153 ]"
check "SIGXFSZ: no temporary remains" "[ -z \"\$(ls | grep '\\.tmp\\.')\" ]"
check "SIGXFSZ: the earlier V is kept, no CSV" "[ \"\$(cat v.h5)\" = 'earlier V' ] && [ ! -e big.csv ]"

cd /
rm -rf "$work"
exit $fail
