#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (e.g. an H200):
#  1. the end-to-end op suite compiled with --target=cuda and run on the GPU,
#     against the same f64 references as the CPU suite;
#  2. the GPU matmul benchmark, rlx against cuBLAS in the same process.
# Builds first when needed (scripts/build.sh); RLX_SKIP_BUILD=1 uses build/
# as it is (a build carried to a machine without the compilers' packages).
# Prints everything to stdout; exits non-zero if a test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${RLX_SKIP_BUILD:-0}" != 1 ]; then
  ./scripts/build.sh >/dev/null || { echo "gpu_check: build failed"; exit 1; }
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv

status=0
echo "== e2e op suite, --target=cuda"
RLX_E2E_CUDA=1 build/bin/rlx-e2e-tests --gtest_filter='Cuda*' --gtest_brief=1 || status=1

echo "== matmul f32: rlx --target=cuda vs cuBLAS (device-resident operands)"
build/bin/rlx-bench-gpu-matmul --target cuda ${RLX_GPU_SIZES:-1024 2048 4096 8192 129x257x511} || status=1
exit $status
