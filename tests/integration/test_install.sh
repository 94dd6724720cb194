#!/bin/bash
# `cmake --install` of liblcm into a fresh prefix, and the estimation loop
# (examples/estimation-loop) built against that copy twice, with
# find_package(lcm) and with pkg-config, run, and compared with the
# in-tree build; with gfortran, examples/fortran too.  Also: the installed
# lcm.h includes nothing from the source tree, and liblcm.so exports
# exactly lcm.h's functions.
#   test_install.sh BUILD_DIR SOURCE_DIR IN_TREE_ESTIMATE WORK_DIR
set -euo pipefail
B=$1 S=$2 EST=$3 W=$4/install-test
rm -rf "$W" && mkdir -p "$W"
P=$W/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$B" --prefix "$P" >"$W/install.log"
H=$P/include/lcm.h
[ -f "$H" ] || fail "no $H"
grep -q '^#define LCM_VERSION_STRING "' "$H" || fail "lcm.h does not define LCM_VERSION_STRING"
bad=$(grep '^[[:space:]]*#[[:space:]]*include' "$H" | grep -v '<std[a-z]*\.h>' || true)
[ -z "$bad" ] || fail "lcm.h includes more than standard headers: $bad"
[ "$(ls "$P/include")" = lcm.h ] || fail "headers other than lcm.h installed: $(ls "$P/include")"
lib=$(find "$P" -name liblcm.so | head -1)
[ -n "$lib" ] || fail "no liblcm.so under $P"
libdir=$(dirname "$lib")
readlink "$lib" | grep -q '^liblcm\.so\.[0-9]' || fail "liblcm.so is not a link to a versioned library"
[ -f "$libdir/pkgconfig/lcm.pc" ] || fail "no lcm.pc"
[ -f "$libdir/cmake/lcm/lcmConfig.cmake" ] || fail "no lcmConfig.cmake"

# Exported symbols: lcm_ ones, each declared in lcm.h (plus the lock
# variables GCC makes global for named `omp critical` sections).
nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^\.gomp_critical_user_' >"$W/exports"
[ -s "$W/exports" ] || fail "liblcm.so exports nothing"
leaked=$(grep -v '^lcm_' "$W/exports" || true)
[ -z "$leaked" ] || fail "liblcm.so exports non-lcm_ symbols: $leaked"
while read -r sym; do
  grep -qw "$sym" "$H" || fail "liblcm.so exports $sym, which lcm.h does not declare"
done <"$W/exports"

# The header alone, as C and without the source tree on the include path.
printf '#include <lcm.h>\n#include <stdio.h>\nint main(void){puts(LCM_VERSION_STRING);return 0;}\n' >"$W/v.c"
cc -std=c99 -Wall -Werror -pedantic -I"$P/include" "$W/v.c" -o "$W/v"
[ "$("$W/v")" = "$(sed -n 's/^#define LCM_VERSION_STRING "\(.*\)"/\1/p' "$S/runtime/include/lcm.h")" ] || fail "version"

# The model, with the installed generator.
"$P/bin/lcmgen" "$S/models/iskhakov_2017.lua" -o "$W/iskhakov" >/dev/null

# 1. find_package(lcm): the example's own CMakeLists.txt
cmake -S "$S/examples/estimation-loop" -B "$W/cmake-build" -DCMAKE_PREFIX_PATH="$P" \
  -DCMAKE_BUILD_TYPE=Release >"$W/cmake.log" || { cat "$W/cmake.log"; fail "configuring with find_package(lcm)"; }
cmake --build "$W/cmake-build" >>"$W/cmake.log" || { cat "$W/cmake.log"; fail "building with find_package(lcm)"; }
# 2. pkg-config, with a plain compiler command
export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --modversion lcm)" = "$("$W/v")" ] || fail "lcm.pc's version"
cc -O2 "$S/examples/estimation-loop/estimate.c" -o "$W/estimate-pc" $(pkg-config --cflags --libs lcm) -lm

# Both link the installed copy, not the build tree's: the find_package
# build by its own run path (so without an LD_LIBRARY_PATH this shell may
# have inherited, which would come first).
# (ldd's output taken whole first: with pipefail, `ldd | grep -q` fails
# whenever grep's early exit kills ldd with SIGPIPE)
deps=$(env -u LD_LIBRARY_PATH ldd "$W/cmake-build/estimate")
grep -q "$libdir/liblcm.so" <<<"$deps" || fail "the find_package build does not use $libdir: $deps"
deps=$(LD_LIBRARY_PATH=$libdir ldd "$W/estimate-pc")
grep -q "$libdir/liblcm.so" <<<"$deps" || fail "the pkg-config build does not use $libdir: $deps"

# The same answer as the in-tree build ("compiled: ..." depends on the cache).
run() { "$@" "$W/iskhakov" "$S/models/iskhakov_2017.initial.csv" 120 | sed 's/; compiled:.*//'; }
want=$(run "$EST")
got_cmake=$(run "$W/cmake-build/estimate")
got_pc=$(LD_LIBRARY_PATH=$libdir run "$W/estimate-pc")
echo "in tree:      $want"
echo "find_package: $got_cmake"
echo "pkg-config:   $got_pc"
[ -n "$want" ] && [ "$want" = "$got_cmake" ] && [ "$want" = "$got_pc" ] || fail "outputs differ"
# Fortran through iso_c_binding (examples/fortran), where gfortran is installed:
# V of tiny's first period as `lcm solve` writes it.
if command -v gfortran >/dev/null; then
  "$P/bin/lcmgen" "$S/models/tiny.lua" -o "$W/tiny" >/dev/null
  gfortran -std=f2008 -Wall -J "$W" "$S/examples/fortran/lcm.f90" "$S/examples/fortran/tiny.f90" -o "$W/tiny-f" \
    $(pkg-config --libs lcm)
  LD_LIBRARY_PATH=$libdir "$W/tiny-f" "$W/tiny" | awk '{printf "%.10f\n", $1}' >"$W/tiny-f.txt"
  "$P/bin/lcm" solve "$W/tiny" --params "$S/models/tiny.params.lua" --csv "$W/tiny.csv" --log-level off
  awk -F, '$1 == 0 && $3 == "alive" {printf "%.10f\n", $NF}' "$W/tiny.csv" >"$W/tiny-c.txt"
  [ -s "$W/tiny-f.txt" ] && cmp -s "$W/tiny-f.txt" "$W/tiny-c.txt" || fail "Fortran: $(paste "$W/tiny-f.txt" "$W/tiny-c.txt")"
  echo "fortran:      $(wc -l <"$W/tiny-f.txt") values as lcm solve's"
else
  echo "fortran:      not tried (no gfortran)"
fi
echo "ok"
