#!/usr/bin/env bash
# A replica that exits in the middle of training (FaultsTest `die` mode:
# replica 1 leaves at step 50 of 100 psum steps).
# 1. As mpirun runs by default, the job ends: mpirun kills the survivors and
#    exits non-zero, naming the process that failed.
# 2. With mpirun told to let the survivors run on
#    (orte_abort_on_non_zero_status 0), replica 0's next collective fails
#    with a status naming the timeout (3 s here) and the process exits:
#    no hang (MPI_Finalize, which would wait for the dead peer, is skipped).
# usage: dead_replica.sh MPIRUN FAULTS_TEST
set -uo pipefail
mpirun=$1 test=$2
flags=(--allow-run-as-root --oversubscribe --bind-to none -np 2)

out=$(timeout 60 "$mpirun" "${flags[@]}" "$test" die 2>&1)
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
  echo "$out"; echo "FAIL: mpirun exited with $rc, expected a failure"; exit 1
fi
grep -q "exited with non-zero status" <<<"$out" ||
  { echo "$out"; echo "FAIL: mpirun did not name the failed process"; exit 1; }

start=$(date +%s)
out=$(timeout 60 "$mpirun" "${flags[@]}" --mca orte_abort_on_non_zero_status 0 \
  "$test" die 2>&1)
rc=$?
elapsed=$(( $(date +%s) - start ))
echo "$out"
[ $rc -ne 124 ] || { echo "FAIL: the survivors hung"; exit 1; }
grep -q "rank 0: step 50 failed after [0-9.]* s: .*timed out after 3 s waiting for the other replicas" <<<"$out" ||
  { echo "FAIL: replica 0 did not report the dead replica"; exit 1; }
[ $elapsed -lt 30 ] || { echo "FAIL: took ${elapsed} s"; exit 1; }
echo "dead replica: reported, job ended after ${elapsed} s"
