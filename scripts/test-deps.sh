#!/bin/sh
# Installs what the hardening steps of scripts/test.sh need on top of
# scripts/deps.sh, from Debian packages, when it is missing: clang and its
# libFuzzer runtime (scripts/fuzz.sh) and valgrind (tests/hardening).  Kept
# apart from deps.sh so the main job does not pull them in.  Run as root
# (or with sudo available).
set -eu
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
updated=0

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

install_missing() {
  missing=""
  for p in "$@"; do installed "$p" || missing="$missing $p"; done
  [ -z "$missing" ] && return 0
  echo "installing:$missing"
  if [ $updated -eq 0 ]; then $SUDO apt-get update -qq; updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
}

install_missing clang valgrind

# libFuzzer (-fsanitize=fuzzer) ships in libclang-rt-N-dev, which clang-N
# only recommends, so --no-install-recommends leaves it out.  N is the
# installed clang's major version (14 on bookworm).  Older Debian releases
# have no such package: there the runtime is part of libclang-common-N-dev,
# which clang depends on.
major=$(clang -dumpversion | cut -d. -f1)
rt=libclang-rt-$major-dev
if ! installed "$rt"; then
  if [ $updated -eq 0 ] && ! apt-cache show "$rt" >/dev/null 2>&1; then
    $SUDO apt-get update -qq; updated=1
  fi
  if apt-cache show "$rt" >/dev/null 2>&1; then
    install_missing "$rt"
  fi
fi
