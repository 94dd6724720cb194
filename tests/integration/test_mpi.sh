#!/bin/bash
# Sharding over MPI ranks (cpu backend, oversubscribed): mpirun -np 2 and
# -np 3 solve and simulate tests/models/sharded.lua with one sharded state
# (3 values: -np 2 pads) and two (3 x 2), and must write byte-identical
# CSV files to a single process, as must a continuation table reading a
# sharded state; the HDF5 solution of an MPI job is read by
# a single process; ranks x devices combine.  Skipped (77) without mpirun.
. "${BASH_SOURCE%/*}/common.sh"
command -v mpirun > /dev/null || { echo "no mpirun: skipped"; exit 77; }
# CI runs as root; Open MPI refuses that unless told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

work=$(mktemp -d "$BIN/mpi-XXXXXX")
M=$SRC/tests/models
common="--params $M/sharded.params.lua --backend cpu --log-level warning"
sim="--initial $M/sharded.initial.csv --seed 4"

for axes in 1 2; do
  "$LCM" solve "$M/sharded.lua" -D axes=$axes $common --csv "$work/one-$axes.csv"
  "$LCM" simulate "$M/sharded.lua" -D axes=$axes $common $sim --csv "$work/one-sim-$axes.csv"
  for np in 2 3; do
    mpirun -np $np "$LCM" solve "$M/sharded.lua" -D axes=$axes $common --csv "$work/np$np-$axes.csv" \
      --out "$work/np$np-$axes.h5" > "$work/np$np-$axes.log" 2>&1
    check "mpirun -np $np, $axes sharded: solve exits 0" "[ $? -eq 0 ]"
    check "mpirun -np $np, $axes sharded: same V" "cmp -s '$work/one-$axes.csv' '$work/np$np-$axes.csv'"
    mpirun -np $np "$LCM" simulate "$M/sharded.lua" -D axes=$axes $common $sim --csv "$work/np$np-sim-$axes.csv" \
      > "$work/np$np-sim-$axes.log" 2>&1
    check "mpirun -np $np, $axes sharded: simulate exits 0" "[ $? -eq 0 ]"
    check "mpirun -np $np, $axes sharded: same panel" "cmp -s '$work/one-sim-$axes.csv' '$work/np$np-sim-$axes.csv'"
    # the job's solution file, simulated by one process
    "$LCM" simulate "$M/sharded.lua" -D axes=$axes --solution "$work/np$np-$axes.h5" $sim --csv "$work/read-$np-$axes.csv" \
      --backend cpu --log-level warning
    check "the -np $np solution file simulates the same panel" "cmp -s '$work/one-sim-$axes.csv' '$work/read-$np-$axes.csv'"
    if command -v h5dump > /dev/null; then
      check "the -np $np solution file records $np shards" "h5dump -a shards '$work/np$np-$axes.h5' 2>/dev/null | grep -q '(0): $np'"
    else
      echo "h5dump is not installed (hdf5-tools): the shards attribute is not checked"
    fi
  done
done

# a continuation table that reads the sharded state (models/saving_choice.lua with types)
sc="$SRC/models/saving_choice.lua -D types=3 -D wealth_points=25 -D income_batch=3 --backend cpu --log-level warning"
sc="$sc --params $SRC/models/saving_choice.params.lua --set patience_gap=0.25"
"$LCM" solve $sc --csv "$work/sc-one.csv"
for np in 2 3; do
  mpirun -np $np "$LCM" solve $sc --csv "$work/sc-np$np.csv" > "$work/sc-np$np.log" 2>&1
  check "mpirun -np $np, sharded continuation table: same V" "[ -s '$work/sc-one.csv' ] && cmp -s '$work/sc-one.csv' '$work/sc-np$np.csv'"
done

# a regime solved by EGM with its type sharded: V and its marginal values
# come together on rank 0, and the panel reads both (from the job's file too)
egm="$SRC/tests/models/egm_cake.lua -D types=3 -D shard=true --backend cpu --log-level warning"
egm_params="--params $M/egm_cake.params.lua"
egm_initial=$M/egm_cake_types.initial.csv
"$LCM" simulate $egm $egm_params --initial "$egm_initial" --csv "$work/egm-one.csv"
for np in 2 3; do
  mpirun -np $np "$LCM" simulate $egm $egm_params --initial "$egm_initial" --csv "$work/egm-np$np.csv" \
    > "$work/egm-np$np.log" 2>&1
  check "mpirun -np $np, EGM with a sharded type: same panel" \
    "[ -s '$work/egm-one.csv' ] && cmp -s '$work/egm-one.csv' '$work/egm-np$np.csv'"
  mpirun -np $np "$LCM" solve $egm $egm_params --out "$work/egm-np$np.h5" > "$work/egm-solve-np$np.log" 2>&1
  "$LCM" simulate $egm --solution "$work/egm-np$np.h5" --initial "$egm_initial" --csv "$work/egm-read-np$np.csv"
  check "the -np $np EGM solution file simulates the same panel" \
    "[ -s '$work/egm-one.csv' ] && cmp -s '$work/egm-one.csv' '$work/egm-read-np$np.csv'"
done

# ranks x devices: 2 ranks of 2 workers each
mpirun -np 2 "$LCM" solve "$M/sharded.lua" -D axes=2 ${common/--log-level warning/--log-level progress} --devices 2 \
  --csv "$work/np2x2.csv" > "$work/np2x2.log" 2>&1
check "2 ranks x 2 devices: same V" "cmp -s '$work/one-2.csv' '$work/np2x2.csv'"
check "the layout is printed once" "[ \$(grep -c 'over 4 workers (2 ranks x 2 devices)' '$work/np2x2.log') -eq 1 ]"

# a failed check stops every rank with the same code; rank 0 reports it
mpirun -np 2 "$LCM" solve "$M/sharded.lua" -D axes=1 --params "$M/sharded.params.lua" --backend cpu \
  --set 'survival={bad=0.5,good=0.6}' --set 'health_transition={{0.7,0.2},{0.1,0.9}}' --csv "$work/bad.csv" \
  > "$work/bad.log" 2>&1
check "a failed check fails the job" "[ $? -ne 0 ]"
check "rank 0 reports it once" "[ \$(grep -c 'Markov state transition probabilities' '$work/bad.log') -eq 1 ]"
check "and nothing is written" "[ ! -e '$work/bad.csv' ]"

# ranks that run another command, model, precision or parameters than rank 0
# (an MPMD line, a per-rank environment) are refused, where they crashed,
# hung or wrote a V that mixed the two: expect NAME CODE MESSAGE ARGS...
expect() {
  local name=$1 code=$2 msg=$3
  shift 3
  timeout 60 mpirun "$@" > "$work/x.log" 2>&1
  local rc=$?
  check "$name: exit $code (got $rc; 124: hung)" "[ $rc -eq $code ]"
  check "$name: says so" "grep -qF \"$msg\" '$work/x.log'"
  check "$name: writes nothing" "[ ! -e '$work/x.csv' ]"
}
one="$M/sharded.lua -D axes=1 $common --csv $work/x.csv"
expect "another grid on rank 1" 2 "rank 1 of the MPI job: the model (its file and -D options), the precision or the workers (--devices): not the same as on rank 0" \
  -np 1 "$LCM" solve $one : -np 1 "$LCM" solve $one -D wealth_points=41
expect "float32 on rank 1" 2 "the precision or the workers (--devices): not the same as on rank 0" \
  -np 1 "$LCM" solve $one : -np 1 "$LCM" solve $one --precision 32
expect "other parameters on rank 1" 2 "rank 1 of the MPI job: the parameters: not the same as on rank 0" \
  -np 1 "$LCM" solve $one : -np 1 "$LCM" solve $one --set discount_factor=0.5
expect "another command on rank 1" 2 "rank 1 of the MPI job: the command: not the same as on rank 0" \
  -np 1 "$LCM" solve $one : -np 1 "$LCM" simulate $one $sim
expect "another seed on rank 1" 2 "rank 1 of the MPI job: the seed or the subjects (initial conditions): not the same as on rank 0" \
  -np 1 "$LCM" simulate $one $sim : -np 1 "$LCM" simulate $one ${sim/--seed 4/--seed 5}
# the same number of subjects, one value changed
awk -F, -v OFS=, 'NR == 2 { $NF = $NF + 1 } { print }' "$M/sharded.initial.csv" > "$work/other.initial.csv"
expect "other initial conditions on rank 1" 2 "the seed or the subjects (initial conditions): not the same as on rank 0" \
  -np 1 "$LCM" simulate $one $sim : -np 1 "$LCM" simulate $one ${sim/$M\/sharded.initial.csv/$work\/other.initial.csv}
# a failure of one rank alone, before the others' next collective, ends
# the job with its code and message (the others waited for ever)
expect "an output folder missing on rank 1" 5 "rank 1 of the MPI job: cannot write '/nonexistent/x.csv'" \
  -np 1 "$LCM" solve $one : -np 1 "$LCM" solve "$M/sharded.lua" -D axes=1 $common --csv /nonexistent/x.csv
expect "a NaN parameter on rank 1" 4 "rank 1 of the MPI job: parameter 'discount_factor'" \
  -np 1 "$LCM" solve $one : -np 1 "$LCM" solve $one --set discount_factor=0/0
# rank 0's memory check counts its gathering of the ranks' V
expect "the memory check of rank 0 counts the gathering" 10 "the gathering of V from the other ranks (rank 0" \
  -np 2 -x LCM_MEMORY_LIMIT=1M "$LCM" solve "$M/sharded.lua" -D axes=1 -D wealth_points=2000 $common --csv "$work/limited.csv"

rm -rf "$work"
exit $fail
