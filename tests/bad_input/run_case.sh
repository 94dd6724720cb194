#!/bin/bash
# Runs one case of the bad-input catalogue (catalogue.txt):
#   name | exit code | expected message (a fixed string) | [prepare @@] command
# The command runs under bash in a fresh empty directory $OUT (also the
# working directory) with $LCM, $LCMGEN, $SRC (source tree), $CASES
# (tests/bad_input) and $HELPERS (the folder of lcm, where the test helpers
# are built: exchange_loop) set.  Inputs a case builds, and earlier outputs it wants
# kept, go to $WORK, not $OUT.
#
# The case passes when the command exits with the code, its stderr contains
# the message, $OUT holds no file afterwards (no partial output, and nothing
# a hostile model or params file could have created in the working
# directory), and no input changed: the files under $SRC/models and $CASES
# are byte-identical afterwards with none added, and so is every file that
# `prepare` (when the case has one, before " @@ ") left in $WORK -- inputs
# and earlier outputs alike (the command itself may add files to $WORK).  $HOME points to an empty folder
# that must stay empty (the place `rm -rf ~` or a planted ~/.bashrc would go).
set -u
name=$1
export LCM=$2 LCMGEN=$3 SRC=$4
BIN=$5
export CASES=$SRC/tests/bad_input HELPERS=${LCM%/*}
line=$(grep -E "^$name *\|" "$CASES/catalogue.txt")
[ -n "$line" ] || { echo "no case '$name'"; exit 1; }
want_rc=$(echo "$line" | cut -d'|' -f2 | xargs)
want_msg=$(echo "$line" | cut -d'|' -f3 | sed 's/^ *//; s/ *$//')
cmd=$(echo "$line" | cut -d'|' -f4- | sed 's/^ *//')
prepare=
case "$cmd" in *" @@ "*) prepare=${cmd%% @@ *}; cmd=${cmd#* @@ } ;; esac
# A case that builds its inputs with an HDF5 command-line tool (hdf5-tools,
# which scripts/deps.sh installs) is skipped (77) where the tool is missing.
for tool in $(printf '%s\n' "$prepare $cmd" | grep -oE '\bh5(copy|dump|repack|ls|jam|unjam|diff|stat|clear|mkgrp)\b' | sort -u); do
  command -v "$tool" > /dev/null || { echo "$tool is not installed (hdf5-tools): skipped"; exit 77; }
done
# GPUs are hidden: the cases are written for the cpu backend that --backend
# auto picks without one (their messages, the cache's cpu/ entries), as CI
# runs them; with a GPU the NVIDIA driver would also keep a cache of its own
# in $HOME/.nv, which must stay empty.
export CUDA_VISIBLE_DEVICES=
export OUT=$(mktemp -d "$BIN/bad-$name-XXXXXX")
export WORK=$(mktemp -d "$BIN/bad-work-$name-XXXXXX")
export HOME=$(mktemp -d "$BIN/bad-home-$name-XXXXXX")
stderr=$BIN/bad-stderr-$name.$$
fail=0
# a listing with checksums of every file under the folders given
snapshot() { find "$@" -type f -print0 2>/dev/null | xargs -0 -r sha256sum | LC_ALL=C sort; }
if [ -n "$prepare" ]; then
  ( cd "$OUT" && bash -c "$prepare" ) > /dev/null 2>&1 || { echo "prepare failed: $prepare"; fail=1; }
fi
src_before=$(snapshot "$SRC/models" "$CASES")
work_before=$(snapshot "$WORK")
( cd "$OUT" && bash -c "$cmd" ) > /dev/null 2> "$stderr"
rc=$?
# a case that cannot run here (not root, a tool missing) exits 77: skipped
if [ "$rc" = 77 ] && [ "$want_rc" != 77 ]; then
  cat "$stderr"; rm -rf "$OUT" "$WORK" "$HOME" "$stderr"; exit 77
fi
src_after=$(snapshot "$SRC/models" "$CASES")
work_after=$(snapshot "$WORK")
if [ "$rc" != "$want_rc" ]; then echo "exit code $rc, expected $want_rc"; fail=1; fi
if ! grep -qF -- "$want_msg" "$stderr"; then echo "message not found: $want_msg"; fail=1; fi
left=$(find "$OUT" "$HOME" -mindepth 1 | head -5)
if [ -n "$left" ]; then echo "output or planted files left: $left"; fail=1; fi
if [ "$src_before" != "$src_after" ]; then
  echo "the source tree changed:"; diff <(echo "$src_before") <(echo "$src_after") | head -10; fail=1
fi
lost=$(LC_ALL=C comm -23 <(echo "$work_before") <(echo "$work_after"))
if [ -n "$lost" ]; then echo "inputs or earlier outputs changed or removed:"; echo "$lost" | head -10; fail=1; fi
if [ $fail -ne 0 ]; then echo "--- command: $cmd"; echo "--- stderr:"; cat "$stderr"; fi
rm -rf "$OUT" "$WORK" "$HOME" "$stderr"
exit $fail
