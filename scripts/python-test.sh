#!/bin/sh
# The Python package's tests: a fresh virtual environment, the package
# installed into it by the README's pip line (scikit-build-core builds
# lcmgen._core from this project's CMake), then its pytest suite
# (python/tests), which compares with the lcm command of ./build (run
# scripts/build.sh first: scripts/test.sh does).
set -eu
cd "$(dirname "$0")/.."
V=build/python-venv
PY=${PYTHON:-python3}
rm -rf "$V"
"$PY" -m venv "$V"
"$V/bin/python" -m pip install -q --upgrade pip
"$V/bin/python" -m pip install -q "./[test]"
# the tests import the installed package, not python/lcmgen of the tree
cd python/tests
LCM_REPO="$(cd ../.. && pwd)" "../../$V/bin/python" -m pytest -q -p no:cacheprovider "$@"
