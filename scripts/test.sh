#!/bin/sh
# Install what is missing, build, and run the whole test suite (ctest).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
