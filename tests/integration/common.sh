# The shell tests' common start, sourced first by each of them:
#   . "${BASH_SOURCE%/*}/common.sh"
# with the test's own arguments, which tests/CMakeLists.txt passes as
#   LCM LCMGEN SRC BIN [VCMP]
# (the two programs, the source tree, the tests' build folder, v_compare).
# It gives a test:
#   check WHAT CONDITION  CONDITION (shell text, run by eval) holds, or
#                         "FAILED: WHAT" is printed and the test fails
#   work_dir NAME         $work, a new folder under $BIN, with the cache in it
#   fail                  1 once a check failed: the test ends with `exit $fail`
# and one guarantee: a test that ends early with a failing status (an error
# of its own under set -u, a command that ended the shell) prints the
# command it was in, so a failure never reads as silence in ctest's log.
# Exit status 77 is a skip (SKIP_RETURN_CODE), not a failure.
set -u
LCM=$1 LCMGEN=$2 SRC=$3 BIN=$4 VCMP=${5:-}
fail=0

check() { if ! eval "$2"; then echo "FAILED: $1"; fail=1; fi; }

work_dir() {
  work=$(mktemp -d "$BIN/$1-XXXXXX")
  export LCM_CACHE_DIR=$work/cache
}

set -T # functions and command substitutions keep the DEBUG trap
trap 'last_command=$BASH_COMMAND' DEBUG
trap 'rc=$?; trap - DEBUG
      if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ $fail -eq 0 ]; then
        echo "FAILED: the test ended early (status $rc), in: $last_command"
      fi' EXIT
