#!/bin/sh
# Installs what the hardening steps of scripts/test.sh need on top of
# scripts/deps.sh, from Debian packages, when it is missing: clang with its
# libFuzzer runtime and OpenMP (scripts/fuzz.sh) and valgrind
# (tests/hardening).  Kept apart from deps.sh so the main job does not pull
# them in.  Run as root (or with sudo available).
set -eu
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
updated=0

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

install_missing() {
  missing=""
  for pkg in "$@"; do installed "$pkg" || missing="$missing $pkg"; done
  [ -z "$missing" ] && return 0
  echo "installing:$missing"
  if [ $updated -eq 0 ]; then $SUDO apt-get update -qq; updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
}

install_missing clang valgrind

# Two parts of clang that installing it with --no-install-recommends leaves
# out: the libFuzzer runtime (-fsanitize=fuzzer; libclang-rt-N-dev, only
# recommended) and OpenMP for clang (omp.h and libomp, libomp-N-dev; the
# project builds with -fopenmp).  N is the installed clang's major version
# (14 on bookworm), so they match it.  A package this release does not have
# is skipped (older Debian: the runtime is in libclang-common-N-dev, which
# clang depends on).
major=$(clang -dumpversion | cut -d. -f1)
for p in "libclang-rt-$major-dev" "libomp-$major-dev"; do
  if installed "$p"; then continue; fi
  if [ $updated -eq 0 ] && ! apt-cache show "$p" > /dev/null 2>&1; then
    $SUDO apt-get update -qq
    updated=1
  fi
  if apt-cache show "$p" > /dev/null 2>&1; then install_missing "$p"; fi
done
