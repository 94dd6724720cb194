#!/bin/sh
# Install what is missing, build, and run the whole test suite (ctest) and
# the Python package's (pytest), then the hardening steps: the suite again under AddressSanitizer and UBSan, and
# the fuzzers.  (The valgrind test is part of the suite, label hardening.)
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/test-deps.sh
sh scripts/build.sh -DLCM_ASSERTS=ON   # the invariants (lcm_assert) are checked under test
ctest --test-dir build --output-on-failure -j "$(nproc)"
sh scripts/python-test.sh   # the Python package, installed in a fresh venv, against ./build's lcm
sh scripts/sanitize.sh
# fuzz.sh itself decides whether clang with libFuzzer is there to use
if [ -f scripts/fuzz.sh ]; then sh scripts/fuzz.sh; fi
