#!/usr/bin/env bash
# Data-parallel Adam step of the MLP 784-512-512-10, rlx (mpirun, one core
# and one kernel thread per process) beside PyTorch DDP on gloo (the same
# pinning), on 1 and 2 processes; a global batch of 128 rows split over
# them. Usage: bench/data_parallel.sh [steps] [global]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-100} global=${2:-128}
bin=build/bin/rlx-bench-data-parallel
for p in 1 2; do
  if [ "$p" = 1 ]; then
    RLX_NUM_THREADS=1 taskset -c 0 "$bin" "$steps" "$global"
  else
    # Each process has one core and one kernel thread: the collectives run
    # at their start. Then the same with them on the communicator's thread
    # (which shares the core), overlapping the rest of the backward pass.
    for overlap in 0 1; do
      echo -n "RLX_COLLECTIVE_OVERLAP=$overlap: "
      mpirun --allow-run-as-root --bind-to core -x RLX_NUM_THREADS=1 \
        -x RLX_COLLECTIVE_OVERLAP=$overlap -np "$p" "$bin" "$steps" "$global"
    done
  fi
  /usr/bin/python3 bench/ddp_reference.py "$p" "$steps" "$global"
done
