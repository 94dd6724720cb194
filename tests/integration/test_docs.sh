#!/bin/bash
# Runs the examples of the user guide and the model language reference, so
# that what the documents show is what the commands do.
#
# Each document is read top to bottom in a fresh folder holding copies of
# models/ and examples/ and build/bin (the commands of the documents run
# from the repository root, with build/bin on the PATH).  A ```sh block is run as it stands (bash -e),
# the shell's exported variables carried from one block to the next (so
# `export PATH=...` in one block holds in the next), and must succeed.
# Other blocks are checked as the comment on the line before them says:
#
#   <!-- doc-test: output -->     its lines (but "..." lines) appear, in order, in
#                                 what the last ```sh block printed (stdout and
#                                 stderr); durations ("0.16 s") match any duration
#   <!-- doc-test: transcript --> "$ command" lines, each followed by lines its
#                                 output must hold, in order ("..." skipped)
#   <!-- doc-test: file PATH -->  the block is the file PATH (written, for later blocks)
#   <!-- doc-test: in PATH -->    the block's lines are lines of PATH, one after another
#   <!-- doc-test: python -->     run with python3 when h5py is installed
#   <!-- doc-test: skip (why) --> not run: installs packages, builds, a fragment
#
# A block that is not ```sh and has no such comment is an illustration (a
# fragment of a model, a layout) and is not checked.  GPUs are hidden, so the
# outputs are those of the cpu backend the documents show.
. "${BASH_SOURCE%/*}/common.sh"
export CUDA_VISIBLE_DEVICES=
# the documents show what h5ls prints (hdf5-tools, which scripts/deps.sh installs)
command -v h5ls > /dev/null || { echo "h5ls is not installed (hdf5-tools): skipped"; exit 77; }

# "in 0.16 s", "in 0.0002 s": durations differ from run to run
normalize() { sed -E 's/[0-9]+(\.[0-9]+)?( s\b)/N\2/g'; }

# Whether the lines of file $1 (but "..." and empty ones) appear in file $2 in order.
in_order() {
  awk 'NR == FNR { if ($0 != "..." && $0 != "") want[++n] = $0; next }
       i < n && $0 == want[i + 1] { ++i }
       END { if (i < n) { print "  not printed: " want[i + 1]; exit 1 } }' <(normalize < "$1") <(normalize < "$2")
}

# Whether the lines of file $1 are lines of file $2, one after another.
contiguous() {
  awk 'NR == FNR { want[++n] = $0; next }
       { have[++m] = $0 }
       END { for (s = 0; s + n <= m; ++s) { for (k = 1; k <= n && have[s + k] == want[k]; ++k) {} if (k > n) exit 0 }
             exit 1 }' "$1" "$2"
}

# The exported variables, but those that say where the shell is.
exports() { export -p | grep -Ev '^declare -x (PWD|OLDPWD|SHLVL)='; }

# Runs file $1 in the document's folder with the variables exported so far,
# keeps the ones it exports; its output goes to $work/out.
run_sh() {
  (cd "$work" && bash -e -c "$(declare -f exports)"'; source "$1"; source "$2"; exports > "$1"' _ "$work/.env" "$1") \
    > "$work/out" 2>&1
}

failed() { echo "FAILED: $doc:$start: $*"; fail=1; }

# One block: $lang, $marker, the text in $work/.block, opened at line $start.
check_block() {
  local block=$work/.block what=${marker%% *} arg=${marker#* }
  case "$lang:$what" in
    *:skip) ;;
    sh:*)
      if ! run_sh "$block"; then failed "the commands failed:"; sed 's/^/  /' "$block" "$work/out"; fi
      cp "$work/out" "$work/.last" ;;
    *:output)
      in_order "$block" "$work/.last" || failed "the output shown is not what the commands above printed" ;;
    *:file)
      mkdir -p "$(dirname "$work/$arg")" && cp "$block" "$work/$arg" ;;
    *:in)
      contiguous "$block" "$work/$arg" || failed "these lines are not in $arg" ;;
    *:transcript) check_transcript "$block" ;;
    *:python)
      if python3 -c 'import h5py' 2> /dev/null; then
        (cd "$work" && python3 "$block") > "$work/out" 2>&1 || { failed "the Python example failed:"; cat "$work/out"; }
      else
        echo "$doc:$start: the Python example is not run (no h5py)"
      fi ;;
    *:) ;; # an illustration
    *) failed "unknown doc-test comment '$marker'" ;;
  esac
}

# "$ command" then the lines it prints, for each command of the block.
check_transcript() {
  local cmd="" want=$work/.want
  : > "$want"
  while IFS= read -r line || [ -n "$line" ]; do
    if [ "${line#\$ }" != "$line" ]; then
      [ -n "$cmd" ] && transcript_step "$cmd" "$want"
      cmd=${line#\$ }
      : > "$want"
    else
      printf '%s\n' "$line" >> "$want"
    fi
  done < "$1"
  [ -n "$cmd" ] && transcript_step "$cmd" "$want"
}

transcript_step() {
  printf '%s\n' "$1" > "$work/.cmd"
  run_sh "$work/.cmd" # these commands fail on purpose: what they print is the point
  in_order "$2" "$work/out" || { failed "\$ $1 prints:"; sed 's/^/  /' "$work/out"; }
}

run_doc() {
  doc=$1
  work=$(mktemp -d "$BIN/docs-XXXXXX")
  cp -r "$SRC/models" "$SRC/examples" "$work/"
  mkdir -p "$work/build" && ln -s "$(cd "$(dirname "$LCM")" && pwd)" "$work/build/bin"
  (export LCM_CACHE_DIR=$work/cache PATH=$work/build/bin:$PATH; exports) > "$work/.env"
  : > "$work/.last"
  local in_block=0 marker="" pending="" line n=0
  while IFS= read -r line; do
    n=$((n + 1))
    if [ $in_block = 0 ]; then
      case "$line" in
        '<!-- doc-test: '*' -->') pending=${line#<!-- doc-test: }; pending=${pending% -->} ;;
        '```'*)
          in_block=1 lang=${line#\`\`\`} start=$n marker=$pending pending=""
          : > "$work/.block" ;;
        *) [ -n "$line" ] && pending="" ;;
      esac
    elif [ "$line" = '```' ]; then
      in_block=0
      check_block
    else
      printf '%s\n' "$line" >> "$work/.block"
    fi
  done < "$SRC/docs/$doc"
  rm -rf "$work"
}

run_doc user-guide.md
run_doc model-language.md
exit $fail
