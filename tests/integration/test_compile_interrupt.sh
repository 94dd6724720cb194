#!/bin/bash
# An interrupt during the cpu compile (docs/backends.md, "cpu"): a signal to
# lcm (kill PID, a job scheduler's SIGTERM, Ctrl-C) reaches every process of
# the compiler, which leads a process group of its own (a driver such as
# gcc does not pass a signal on to its cc1 or ld), lcm ends by that same
# signal, and neither the compiler nor its folder in TMPDIR (with the
# compiler's own temporaries) outlives lcm, nor does a cache entry appear.
# Ctrl-Z stops the compiler with lcm.  Before, lcm died at once and left both
# behind.  A signal the process ignores stays ignored: the compile runs to
# its end.
. "${BASH_SOURCE%/*}/common.sh"

work=$(mktemp -d "$BIN/compile-interrupt-XXXXXX")
mkdir -m 700 "$work/tmp"
export TMPDIR=$work/tmp LCM_CACHE_DIR=$work/cache PIDFILE=$work/pid
# "compilers" that answer --version and -dumpmachine, then sit in the
# compile as a long one would, in a process of their own as a driver runs
# cc1, whose pid they write (slowcc), or compile (realcc)
printf '#!/bin/sh\ncase "$1" in --version|-dumpmachine) exec cc "$@";; esac\nsh -c %s\necho finished\n' \
  "'echo \$\$ > \"\$PIDFILE\"; exec sleep 60'" > "$work/slowcc"
printf '#!/bin/sh\ncase "$1" in --version|-dumpmachine) exec cc "$@";; esac\necho $$ > "$PIDFILE"\nexec cc "$@"\n' \
  > "$work/realcc"
chmod +x "$work/slowcc" "$work/realcc"

# a "compiler" whose cc1 writes a temporary into TMPDIR as it ends, half a
# second after the signal (gcc's driver and cc1 take a moment too): lcm waits
# for the compiler's group, whose TMPDIR is lcm's compile folder, so the file
# goes with the folder (before, once in 20 tries, gcc's cc*.c stayed)
printf '#!/bin/sh\ncase "$1" in --version|-dumpmachine) exec cc "$@";; esac\nsh -c %s\n' \
  "'trap \"sleep 0.5; echo left > \\\"\$TMPDIR/ccLeft.s\\\"; exit 1\" INT TERM HUP; echo \$\$ > \"\$PIDFILE\"; while :; do sleep 0.05; done'" \
  > "$work/lingercc"
# a "compiler" that counts its progress in $work/ticks
printf '#!/bin/sh\ncase "$1" in --version|-dumpmachine) exec cc "$@";; esac\nsh -c %s\n' \
  "'echo \$\$ > \"\$PIDFILE\"; while :; do echo x >> \"\$TICKS\"; sleep 0.05; done'" > "$work/tickcc"
chmod +x "$work/lingercc" "$work/tickcc"
export TICKS=$work/ticks

# running PID: a process that is not a zombie (one whose parent died is
# reaped by whoever adopts it, which a container may never do)
running() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat"; }
wait_started() { for _ in $(seq 400); do [ -s "$PIDFILE" ] && return; sleep 0.05; done; }
# signals this shell was started ignoring stay ignored for its children
ignored() { local mask; mask=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status); (( (0x$mask >> ($1 - 1)) & 1 )); }

# interrupt NAME NUMBER [COMPILER]: `lcm compile` gets signal NAME alone
# once the compiler runs; what is left afterwards
interrupt() {
  local sig=$1 num=$2 compiler=${3:-slowcc}
  if ignored "$num"; then echo "SIG$sig is ignored here (nohup?): its case is skipped"; return; fi
  rm -f "$PIDFILE"
  LCM_CC=$work/$compiler "$LCM" compile "$SRC/models/tiny.lua" --backend cpu 2> "$work/err" &
  local lcm=$!
  wait_started
  check "$sig: the compiler started" "[ -s '$PIDFILE' ]"
  kill -"$sig" "$lcm"
  local start=$SECONDS
  wait "$lcm"
  local rc=$? cc
  cc=$(cat "$PIDFILE" 2> /dev/null)
  check "$sig: lcm ends by the signal (status $rc)" "[ $rc -eq $((128 + num)) ]"
  check "$sig: at once, not after the compiler" "[ $((SECONDS - start)) -lt 30 ]"
  for _ in $(seq 100); do running "$cc" || break; sleep 0.05; done
  check "$sig: the compiler is gone" "! running '$cc'"
  check "$sig: no compile folder left in TMPDIR" "[ -z \"\$(ls -A '$TMPDIR')\" ]"
  check "$sig: no cpu entry in the cache" "[ -z \"\$(ls -A '$LCM_CACHE_DIR/cpu' 2> /dev/null)\" ]"
  [ -n "$cc" ] && running "$cc" && kill "$cc" 2> /dev/null # (a pid that ended may be reused)
}

set -m # job control: a background job keeps the default SIGINT, as at a terminal
interrupt INT 2
interrupt TERM 15
interrupt HUP 1
interrupt TERM 15 lingercc

# Ctrl-Z: SIGTSTP stops lcm and its compiler (whose group is not the
# terminal's foreground group, so only lcm can pass it on); SIGCONT to lcm
# continues both.  A process group without a parent outside it in the
# session (orphaned) is not stopped by SIGTSTP: then the case is skipped.
state() { sed 's/^[0-9]* (.*) \(.\) .*/\1/' "/proc/$1/stat" 2> /dev/null; }
# the processes whose parent is $1 (stat: "pid (comm) state ppid ...")
children() {
  local f line rest
  for f in /proc/[0-9]*/stat; do
    read -r line 2> /dev/null < "$f" || continue
    rest=${line##*) }; rest=${rest#* }
    [ "${rest%% *}" = "$1" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
  done
}
# whether process $1 is stopped: state T, or D while its child is (a shell
# such as dash starts a command by vfork, and waits in D until the child
# runs exec: the child stopped first, and the shell waits for it)
stopped() {
  local s c
  s=$(state "$1")
  [ "$s" = T ] && return
  [ "$s" = D ] || return 1
  for c in $(children "$1"); do [ "$(state "$c")" = T ] && return; done
  return 1
}
ticks() { wc -l < "$TICKS" 2> /dev/null || echo 0; }
# an `lcm compile` with the ticking compiler, in $lcm and $cc, sent SIGTSTP
# once the compiler runs; whether lcm stopped
compile_then_stop() {
  rm -f "$PIDFILE" "$TICKS"
  LCM_CC=$work/tickcc "$LCM" compile "$SRC/models/tiny.lua" --backend cpu 2> "$work/err" &
  lcm=$!
  wait_started
  cc=$(cat "$PIDFILE")
  kill -TSTP "$lcm"
  for _ in $(seq 500); do [ "$(state "$lcm")" = T ] && break; sleep 0.02; done
  [ "$(state "$lcm")" = T ]
}
if ! compile_then_stop; then
  echo "SIGTSTP did not stop lcm here (an orphaned process group?): the Ctrl-Z case is skipped"
else
  for _ in $(seq 500); do stopped "$cc" && break; sleep 0.02; done
  check "Ctrl-Z: the compiler stops with lcm (state $(state "$cc"))" "stopped '$cc'"
  before=$(ticks); sleep 0.3
  check "Ctrl-Z: the compiler makes no progress while stopped" "[ $(ticks) -eq $before ]"
  kill -CONT "$lcm"
  for _ in $(seq 500); do [ "$(ticks)" -gt "$before" ] && break; sleep 0.02; done
  check "continued: the compiler goes on" "[ $(ticks) -gt $before ] && [ '$(state "$lcm")' != T ]"
fi
kill -CONT "$lcm" 2> /dev/null
kill -TERM "$lcm"
wait "$lcm"
check "stopped, continued and ended: no compile folder left in TMPDIR" "[ -z \"\$(ls -A '$TMPDIR')\" ]"

# SIGTERM to a stopped lcm (bash's `kill %1` of a stopped job): when it is
# continued, its stopped compiler is continued too, to end by the signal at
# once (before, lcm waited for it in vain and killed it after two seconds)
if compile_then_stop; then
  kill -TERM "$lcm"; start=$(date +%s%N); kill -CONT "$lcm"
  # (bash's wait answers at once while it still counts the job stopped)
  for _ in $(seq 500); do running "$lcm" || break; sleep 0.01; done
  took=$((($(date +%s%N) - start) / 1000000))
  wait "$lcm"; rc=$?
  check "stopped, then SIGTERM: ends by it (status $rc) well before the 2 s fallback (${took} ms)" "[ $rc -eq 143 ] && [ $took -lt 1800 ]"
  check "stopped, then SIGTERM: the compiler is gone" "! running '$cc'"
  check "stopped, then SIGTERM: no compile folder left" "[ -z \"\$(ls -A '$TMPDIR')\" ]"
else
  kill -CONT "$lcm"; kill -TERM "$lcm"; wait "$lcm"
fi
set +m

# an ignored SIGINT, sent while the compiler runs, changes nothing
rm -f "$PIDFILE"
# (the compiler in a folder whose name has a space: one program all the same)
mkdir "$work/with space" && cp "$work/realcc" "$work/with space/cc"
(trap '' INT; LCM_CC="$work/with space/cc" exec "$LCM" compile "$SRC/models/tiny.lua" --backend cpu) 2> "$work/err" &
lcm=$!
wait_started
kill -INT "$lcm" 2> /dev/null
wait "$lcm"
check "an ignored SIGINT leaves the compile alone" "[ $? -eq 0 ] && [ -n \"\$(ls -A '$LCM_CACHE_DIR/cpu')\" ]"

rm -rf "$work"
exit $fail
