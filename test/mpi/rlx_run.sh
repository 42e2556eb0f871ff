#!/usr/bin/env bash
# rlx-run runs an artifact's entry point as one replica of mpirun
# (--replicas mpi): Inputs/weighted_sum.mlir on N replicas gives x * N (N + 1) / 2,
# printed by replica 0 alone; without a communicator the collective is an
# error naming it.
# usage: rlx_run.sh RLXC RLX_RUN MPIRUN OUT_DIR N
set -euo pipefail
rlxc=$1 run=$2 mpirun=$3 out=$4 n=$5
here=$(dirname "$0")
rm -rf "$out" && mkdir -p "$out"
"$rlxc" "$here/Inputs/weighted_sum.mlir" -o "$out/sum.so"
/usr/bin/python3 -c "import numpy as np; np.save('$out/x.npy', np.array([1, 2, 4], np.float32))"
got=$("$mpirun" --allow-run-as-root --oversubscribe --bind-to none -np "$n" \
  "$run" "$out/sum.so" --input "$out/x.npy" --replicas mpi)
echo "$got"
k=$(( n * (n + 1) / 2 ))
want="out0: f32[3] = [$k, $((2 * k)), $((4 * k))]"
[ "$got" = "$want" ] || { echo "FAIL: expected '$want'"; exit 1; }
if err=$("$run" "$out/sum.so" --input "$out/x.npy" 2>&1); then
  echo "FAIL: a collective without a communicator succeeded"; exit 1
fi
grep -q "entry point .main.: rlx.axis_index needs a communicator: set one on the session" <<<"$err" ||
  { echo "$err"; echo "FAIL: no communicator: unclear error"; exit 1; }
echo "rlx-run on $n replicas: ok"
