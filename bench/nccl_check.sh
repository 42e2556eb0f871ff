#!/usr/bin/env bash
# NCCL on a machine with NVIDIA GPUs, which needs no MLIR there:
#   bench/nccl_check.sh --prepare DIR   (here) compiles the all-reduce of
#       test/mpi/Inputs/weighted_sum.mlir (replica r adds x * (r + 1)) into
#       DIR/sum.so for any x86-64 with AVX2 (--cpu=x86-64-v3: the GPU
#       machine's CPU may not be this one) and writes DIR/x.npy;
#   bench/nccl_check.sh DIR             (there, with build/bin/rlx-run and
#       build/lib/librlxrt.so, or the rlx-run that RLX_RUN names) runs it
#       with `rlx-run --replicas nccl`: on one
#       process, then under mpirun on one process per GPU when there are 2 or
#       more GPUs and an mpirun; each run checks replica 0's printed sum,
#       x * N (N + 1) / 2. RLX_NCCL_LIBRARY names libnccl.so.2 if it is not
#       on the loader's path (pip's nvidia-nccl-cu12 puts it in
#       site-packages/nvidia/nccl/lib).
# Prints what it ran and saw; exits non-zero if a check failed.
set -uo pipefail
cd "$(dirname "$0")/.."
run=${RLX_RUN:-build/bin/rlx-run}
if [ "${1:-}" = --prepare ]; then
  dir=${2:?usage: nccl_check.sh --prepare DIR}
  mkdir -p "$dir" &&
    build/bin/rlxc test/mpi/Inputs/weighted_sum.mlir --cpu=x86-64-v3 \
      -o "$dir/sum.so" &&
    /usr/bin/python3 -c "import numpy as np; np.save('$dir/x.npy', np.array([1, 2, 4], np.float32))" &&
    echo "prepared $dir: sum.so, x.npy"
  exit
fi
dir=${1:?usage: nccl_check.sh DIR (made by --prepare)}
command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
status=0
check() { # N, then the command
  local n=$1; shift
  local k=$(( n * (n + 1) / 2 ))
  local want="out0: f32[3] = [$k, $((2 * k)), $((4 * k))]"
  echo "== $n replica(s): $*"
  local got
  got=$("$@" 2>&1)
  echo "$got"
  if [ "$(tail -n 1 <<<"$got")" = "$want" ]; then
    echo "ok"
  else
    echo "FAIL: expected '$want'"
    status=1
  fi
}
check 1 "$run" "$dir/sum.so" --input "$dir/x.npy" --replicas nccl
if [ "${gpus:-0}" -ge 2 ] && command -v mpirun >/dev/null; then
  check "$gpus" mpirun --allow-run-as-root --bind-to none -np "$gpus" \
    -x RLX_NCCL_LIBRARY -x LD_LIBRARY_PATH \
    "$run" "$dir/sum.so" --input "$dir/x.npy" --replicas nccl
else
  echo "== $gpus GPU(s)$(command -v mpirun >/dev/null || echo ', no mpirun'): the multi-process run needs 2 GPUs and mpirun"
fi
exit $status
