#!/bin/sh
# Where a cpu solve's kernel spends its time: each function's and each line's
# share of the kernel's samples (perf), the generated code compiled with -g.
#
#   sh bench/kernel_profile.sh BUILD_DIR MODEL [lcm solve options...]
#   e.g. sh bench/kernel_profile.sh build models/mahler_yum_2024.lua \
#          --params P.lua -D first_age=97 --threads 1
#
# The solver is compiled into a fresh cache through a wrapper of the host
# compiler ($LCM_CC, else $CC, else cc) that adds -g and keeps the shared
# object and its source (kernels.c: the line numbers below are its lines).
# The runtime loads the kernel from memory, so perf names it
# "memfd:lcm-solver"; addr2line maps those addresses in the kept object.
# Inlined code counts for the innermost function (lcm_best_of, lcm_interp).
# A share is a ratio within one process, so it moves little when a shared
# machine's speed drifts between runs: compare shares, before and after a
# change, where times differ by less than that drift.  Prints; asserts
# nothing.  Needs perf and addr2line (binutils).  The files stay in
# $PROFILE_DIR, a new or empty directory (default: a new temporary one),
# printed at the end.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: sh bench/kernel_profile.sh BUILD_DIR MODEL [lcm solve options...]" >&2
  exit 2
fi
BUILD=$1
MODEL=$2
shift 2
for tool in perf addr2line; do
  command -v "$tool" >/dev/null 2>&1 || { echo "kernel_profile.sh: $tool is not installed" >&2; exit 1; }
done
[ -x "$BUILD/bin/lcm" ] || { echo "kernel_profile.sh: no $BUILD/bin/lcm (build first)" >&2; exit 1; }
# a directory of its own: PROFILE_DIR may not name one that holds files
# (the profile would overwrite them)
if [ -n "${PROFILE_DIR:-}" ]; then
  if [ -e "$PROFILE_DIR" ] && { [ ! -d "$PROFILE_DIR" ] || [ -n "$(ls -A "$PROFILE_DIR")" ]; }; then
    echo "kernel_profile.sh: PROFILE_DIR '$PROFILE_DIR' exists and is not an empty directory; name a new one" >&2
    exit 2
  fi
  mkdir -p "$PROFILE_DIR"
  DIR=$PROFILE_DIR
else
  DIR=$(mktemp -d)
fi
DIR=$(cd "$DIR" && pwd)

# the compiler wrapper: -g, then copies of what it compiled
cat > "$DIR/cc-g.sh" <<EOF
#!/bin/sh
out=""; src=""; prev=""
for a in "\$@"; do
  case "\$prev" in -o) out="\$a";; esac
  case "\$a" in *.c) src="\$a";; esac
  prev="\$a"
done
${LCM_CC:-${CC:-cc}} -g "\$@" || exit \$?
[ -z "\$out" ] || cp "\$out" "$DIR/kernel.so"
[ -z "\$src" ] || cp "\$src" "$DIR/kernels.c"
EOF
chmod +x "$DIR/cc-g.sh"

LCM_CC="$DIR/cc-g.sh" LCM_CACHE_DIR="$DIR/cache" \
  perf record -q -o "$DIR/perf.data" "$BUILD/bin/lcm" solve "$MODEL" --backend cpu --out "$DIR/solution.h5" "$@" \
  > "$DIR/solve.log" 2>&1 || { echo "kernel_profile.sh: the solve failed ($DIR/solve.log):" >&2; tail -5 "$DIR/solve.log" >&2; exit 1; }
[ -f "$DIR/kernel.so" ] || { echo "kernel_profile.sh: no kernel was compiled (was the model's solver cached?)" >&2; exit 1; }

perf report -q -i "$DIR/perf.data" --no-children --sort dso,sym 2>/dev/null > "$DIR/report.txt"
# each sample row: its share of all samples, its address in the kernel
awk '/memfd:lcm-solver/ { sub(/%/, "", $1); print $1, $NF }' "$DIR/report.txt" > "$DIR/kernel_rows.txt"
cut -d' ' -f2 "$DIR/kernel_rows.txt" | xargs -r addr2line -f -e "$DIR/kernel.so" | paste - - > "$DIR/where.txt"
cut -d' ' -f1 "$DIR/kernel_rows.txt" | paste - "$DIR/where.txt" > "$DIR/attributed.txt"

echo "== $(grep -m1 '^lcm: solved' "$DIR/solve.log" || echo "lcm solve $MODEL")"
awk -F'\t' '{ t += $1 } END { printf "kernel: %.1f%% of the process samples\n", t }' "$DIR/attributed.txt"
echo "by function (share of the kernel's samples):"
awk -F'\t' '{ f[$2] += $1; t += $1 } END { for (k in f) printf "  %5.1f%%  %s\n", 100 * f[k] / t, k }' \
  "$DIR/attributed.txt" | sort -rn | head -8
echo "by line of $DIR/kernels.c:"
awk -F'\t' '{ n = split($3, p, ":"); sub(/ .*/, "", p[n]); l[$2 ":" p[n]] += $1; t += $1 }
  END { for (k in l) printf "  %5.1f%%  %s\n", 100 * l[k] / t, k }' "$DIR/attributed.txt" | sort -rn | head -12
echo "files: $DIR"
