#!/bin/sh
# Installs what lcmgen needs to build and test, from Debian packages, when
# it is missing.  Run as root (or with sudo available).
set -eu
PACKAGES="cmake make gcc g++ libc6-dev pkg-config python3 python3-dev python3-venv liblua5.4-dev lua5.4 libhdf5-dev hdf5-tools libopenmpi-dev openmpi-bin"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
