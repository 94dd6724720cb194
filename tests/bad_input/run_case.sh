#!/bin/bash
# Runs one case of the bad-input catalogue (catalogue.txt):
#   name | exit code | expected message (a fixed string) | command
# The command runs under bash in a fresh empty directory $OUT (also the
# working directory) with $LCM, $LCMGEN, $SRC (source tree) and $CASES
# (tests/bad_input) set.  The case passes when the command exits with the
# code, its stderr contains the message, and $OUT holds no file afterwards
# (no partial output).  Inputs a case builds go to $WORK, not $OUT.
set -u
name=$1
export LCM=$2 LCMGEN=$3 SRC=$4
BIN=$5
export CASES=$SRC/tests/bad_input
line=$(grep -E "^$name *\|" "$CASES/catalogue.txt")
[ -n "$line" ] || { echo "no case '$name'"; exit 1; }
want_rc=$(echo "$line" | cut -d'|' -f2 | xargs)
want_msg=$(echo "$line" | cut -d'|' -f3 | sed 's/^ *//; s/ *$//')
cmd=$(echo "$line" | cut -d'|' -f4- | sed 's/^ *//')
export OUT=$(mktemp -d "$BIN/bad-$name-XXXXXX")
export WORK=$(mktemp -d "$BIN/bad-work-$name-XXXXXX")
stderr=$WORK/.stderr
( cd "$OUT" && bash -c "$cmd" ) > /dev/null 2> "$stderr"
rc=$?
fail=0
if [ "$rc" != "$want_rc" ]; then echo "exit code $rc, expected $want_rc"; fail=1; fi
if ! grep -qF -- "$want_msg" "$stderr"; then echo "message not found: $want_msg"; fail=1; fi
left=$(find "$OUT" -mindepth 1 | head -5)
if [ -n "$left" ]; then echo "partial output left: $left"; fail=1; fi
if [ $fail -ne 0 ]; then echo "--- command: $cmd"; echo "--- stderr:"; cat "$stderr"; fi
rm -rf "$OUT" "$WORK"
exit $fail
