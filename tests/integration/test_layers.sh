#!/bin/bash
# The layer table (scripts/check_layers.py, docs/internals.md "Layers"): the
# tree's includes all point down, and the check does fail on an upward
# include, on Lua reached from the runtime, and on a circle, planted in a
# copy of the tree.
set -eu
S=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 "$S/scripts/check_layers.py" "$S" || fail "the tree has an include against the layers"

plant() { # plant FILE LINE: a copy of the tree with LINE added to FILE; prints the check's output, which must fail
    rm -rf "$W/t" && mkdir -p "$W/t"
    (cd "$S" && tar cf - templates runtime/include ir gen runtime/io runtime/core runtime/backends runtime/solve runtime/sim runtime/cli) | tar xf - -C "$W/t"
    printf '%s\n' "$2" >> "$W/t/$1"
    if python3 "$S/scripts/check_layers.py" "$W/t" > "$W/out"; then fail "planted '$2' in $1 passed"; fi
    cat "$W/out"
}
plant ir/base/mem.c '#include "panel.h"' | grep -q "ir/base/mem.c includes runtime/sim/panel.h" || fail "upward include not named"
plant runtime/solve/worker.c '#include "lua_host.h"' | grep -q "runtime/solve/worker.c includes gen/lua_host.h" || fail "runtime reaching gen not named"
plant ir/shard.h '#include "layout.h"' | grep -q "circle: .*ir/layout.*ir/shard" || fail "circle not named"
echo "layers: ok"
