#!/bin/sh
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer
# (Debug, gcc is enough) into ./build-sanitize and runs the CPU test suite
# there.  Any sanitizer report fails this script, even one from a process
# whose exit status a test does not look at (a test that expects `lcm` to
# fail, say): every report goes to a log file, and the logs are checked and
# printed after ctest.
#
# The solvers that the cpu backend compiles at run time (with the host
# compiler, then dlopen) are not instrumented; everything around them is.
# The GPU test skips itself without a GPU.
set -eu
cd "$(dirname "$0")/.."
B=build-sanitize
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

# A fresh configuration every time (the flags must not come from an old
# cache), but keep the objects so a rerun here only rebuilds what changed.
rm -f "$B/CMakeCache.txt"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Debug -DLCM_ASSERTS=ON \
  -DCMAKE_C_FLAGS="$SAN" -DCMAKE_EXE_LINKER_FLAGS="$SAN" -DCMAKE_SHARED_LINKER_FLAGS="$SAN" >/dev/null
cmake --build "$B" -j "$(nproc)"

logs=$(pwd)/$B/sanitizer-logs
rm -rf "$logs" "$B/test-cache"
mkdir -p "$logs"

# halt_on_error / abort_on_error=0: stop at the first report with a failing
# exit status (not a core dump).  detect_leaks: LeakSanitizer at exit (the
# default on x86-64 Linux; said here so it stays on).  log_path: reports go
# to $logs/report.<program>.<pid> instead of stderr (so they cannot be lost
# in a test's captured output, nor upset a test that checks stderr), checked
# below.  strict_string_checks and detect_stack_use_after_return catch more
# at a small cost.  The UBSan part of an ASan build writes through the same
# log; print_stacktrace makes its one-line reports show where.  No
# suppressions: OpenMP (libgomp), HDF5, Lua, forked lcm processes and the
# dlopened solvers give no reports on this suite (MPI: see below).
common="log_path=$logs/report:log_exe_name=1:print_summary=1"
export ASAN_OPTIONS="$common:halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="$common:halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="$common"

status=0
# Left out here: the MPI and NVRTC tests (below, without leak detection);
# the cases that run lcm under ulimit -v (label address_limit):
# AddressSanitizer reserves terabytes of address space for its shadow
# memory and cannot start under such a limit; and installing (label
# install): an installed liblcm built with the sanitizers needs a program
# linked with their runtime, which the example built against it is not.
ctest --test-dir "$B" --output-on-failure -j "$(nproc)" -LE 'mpi|address_limit|nvrtc|install' || status=$?
# NVRTC (label nvrtc): LeakSanitizer's stop-the-world tracer crashes
# (signal 11) at the exit of some processes that ran NVRTC, whose threads
# are still about; ASan and UBSan check them as everything else.
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" ctest --test-dir "$B" --output-on-failure -L nvrtc || status=$?
# The MPI test: Open MPI keeps allocations of MPI_Init past MPI_Finalize
# (in libmpi, libopen-pal, PMIx), which LeakSanitizer reports without
# stacks a suppression could match; everything else stays checked.
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" ctest --test-dir "$B" --output-on-failure -L mpi || status=$?

# A report file with nothing in it holds no report: the sanitizer opens the
# file as it begins to write, so a process killed in between leaves it empty
# (test_outputs_race.sh kills lcm with SIGKILL at random moments, 100 times).
empty=$(find "$logs" -type f -empty | sort)
[ -n "$empty" ] && echo "sanitize.sh: empty report files (a process killed as it began to write; no report): $empty" >&2
# Nor does a file of LeakSanitizer's "Unable to get registers from thread N"
# lines alone: its leak check at exit stops every thread with ptrace, and a
# process that test_outputs_race.sh kills just then takes its threads with
# it before the tracer has read them (a note on its own scan, no finding).
reports=""
for f in $(find "$logs" -type f ! -empty | sort); do
  if grep -qv 'Unable to get registers from thread' "$f"; then
    reports="$reports $f"
  else
    echo "sanitize.sh: a leak check cut short by a kill (no report): $f: $(tr '\n' ' ' < "$f")" >&2
  fi
done
if [ -n "$reports" ]; then
  echo "sanitize.sh: sanitizer reports:" >&2
  for f in $reports; do echo "=== $f" >&2; cat "$f" >&2; done
  status=1
fi
[ "$status" -eq 0 ] && echo "sanitize.sh: no sanitizer reports, all tests passed"
exit "$status"
