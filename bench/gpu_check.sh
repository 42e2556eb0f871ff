#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (e.g. an H200):
#  1. the end-to-end op suite compiled with --target=cuda and run on the GPU,
#     against the same f64 references as the CPU suite;
#  2. the GPU matmul benchmark, rlx against cuBLAS in the same process, f32
#     and bf16 (tensor cores);
#  3. an all-reduce through NCCL (bench/nccl_check.sh);
#  4. ONNX's light model zoo compiled with --target=cuda, run on the GPU and
#     compared with ONNX's stored outputs (bench/gpu_onnx_models.py), and
#     ResNet-50's time per call.
#
#   bench/gpu_check.sh               where MLIR and the GPU are both there:
#                                    builds (scripts/build.sh) and runs.
#   bench/gpu_check.sh --prepare DIR here (MLIR, no GPU): compiles every
#                                    artifact the check needs into DIR/rlxc
#                                    (bench/rlxc_replay.sh records them),
#                                    prepares DIR/nccl, and copies the test
#                                    and bench programs and the libraries
#                                    they need that a CUDA machine lacks
#                                    into DIR/bin and DIR/lib (about 50
#                                    MB, 2.5 MB as a .tar.xz).
#   bench/gpu_check.sh DIR           there (GPU, no MLIR): runs the check on
#                                    DIR, rlxc replayed from DIR/rlxc;
#                                    cuBLAS, the CUDA runtime and NCCL are
#                                    found where pip's nvidia-* wheels or the
#                                    CUDA toolkit put them.
# Prints everything to stdout; exits non-zero if a test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
sizes=${RLX_GPU_SIZES:-1024 2048 4096 8192 129x257x511}
e2e_filter='Cuda*'
onnx_data=build/onnx-backend-data/onnx/backend/test/data

# The light models into $1: inputs, expected outputs, artifacts (for any
# x86-64 with AVX2) and their weights.
prepare_onnx() {
  /usr/bin/python3 bench/gpu_onnx_models.py prepare "$onnx_data" "$1" \
    >/dev/null || return 1
  for model in "$onnx_data"/light/*.onnx; do
    build/bin/rlxc "$model" --target=cuda --cpu=x86-64-v3 \
      -o "$1/$(basename "$model" .onnx).so" || return 1
  done
}

if [ "${1:-}" = --prepare ]; then
  dir=$(realpath -m "${2:?usage: gpu_check.sh --prepare DIR}")
  ./scripts/build.sh >/dev/null || { echo "gpu_check: build failed"; exit 1; }
  rm -rf "$dir/rlxc" && mkdir -p "$dir/bin" "$dir/lib" || exit 1
  # The artifacts' host code for any x86-64 with AVX2, not for this CPU.
  export RLX_RLXC=$root/bench/rlxc_replay.sh RLXC_REPLAY_DIR=$dir/rlxc \
    RLXC_REPLAY_REAL=$root/build/bin/rlxc RLXC_REPLAY_FLAGS=--cpu=x86-64-v3
  # Every case fails here (no GPU to load on); what counts is the recording.
  echo "== recording the e2e suite's CUDA modules"
  RLX_E2E_CUDA=1 build/bin/rlx-e2e-tests --gtest_filter="$e2e_filter" \
    --gtest_brief=1 >/dev/null 2>&1
  echo "== recording the matmul bench's artifacts"
  # One size a call: without a GPU the bench stops at its first load.
  for size in $sizes; do
    build/bin/rlx-bench-gpu-matmul --target cuda "$size" >/dev/null 2>&1
    build/bin/rlx-bench-gpu-matmul --target cuda --bf16 "$size" >/dev/null 2>&1
  done
  bench/nccl_check.sh --prepare "$dir/nccl" || exit 1
  echo "== compiling ONNX's light models"
  prepare_onnx "$dir/onnx" || exit 1
  programs=(build/bin/rlx-e2e-tests build/bin/rlx-bench-gpu-matmul
    build/bin/rlx-run)
  cp "${programs[@]}" "$dir/bin/" || exit 1
  # The libraries the programs load, but for the C/C++ runtime, which every
  # machine has, and CUDA's own, which the GPU machine has (and are large).
  ldd "${programs[@]}" | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/(libcu|libnccl|libnv)[^/]*$' |
    xargs -r cp -L -t "$dir/lib/" || exit 1
  echo "prepared $dir: $(ls "$dir/rlxc" | wc -l) artifacts," \
    "$(ls "$dir/lib" | tr '\n' ' ')"
  du -sh "$dir"
  exit
fi

if [ $# -ge 1 ]; then
  dir=$(realpath "$1") || exit 1
  bin=$dir/bin
  export RLX_RLXC=$root/bench/rlxc_replay.sh RLXC_REPLAY_DIR=$dir/rlxc
  # CUDA's libraries from pip's wheels (nvidia/cu13/lib, nvidia/*/lib) or the
  # toolkit, whichever the machine has.
  libs=$dir/lib
  for name in libcublas.so.13 libcudart.so.13 libnccl.so.2; do
    found=$(find / -xdev -name "$name" -not -path '/proc/*' 2>/dev/null | head -n 1)
    [ -n "$found" ] && libs=$libs:$(dirname "$found")
    [ "$name" = libnccl.so.2 ] && [ -n "$found" ] &&
      export RLX_NCCL_LIBRARY=${RLX_NCCL_LIBRARY:-$found}
  done
  export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
  dir=""
  bin=build/bin
  ./scripts/build.sh >/dev/null || { echo "gpu_check: build failed"; exit 1; }
fi
command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv

status=0
echo "== e2e op suite, --target=cuda"
RLX_E2E_CUDA=1 "$bin/rlx-e2e-tests" --gtest_filter="$e2e_filter" \
  --gtest_brief=1 || status=1

echo "== matmul f32: rlx --target=cuda vs cuBLAS (device-resident operands)"
# shellcheck disable=SC2086
"$bin/rlx-bench-gpu-matmul" --target cuda $sizes || status=1
echo "== matmul bf16 -> f32: rlx on the tensor cores vs cuBLAS's bf16 GEMM"
# shellcheck disable=SC2086
"$bin/rlx-bench-gpu-matmul" --target cuda --bf16 $sizes || status=1

echo "== NCCL all-reduce"
if [ -n "$dir" ]; then
  RLX_RUN=$bin/rlx-run bench/nccl_check.sh "$dir/nccl" || status=1
else
  bench/nccl_check.sh --prepare build/nccl-check >/dev/null &&
    bench/nccl_check.sh build/nccl-check || status=1
fi

echo "== ONNX light models, --target=cuda"
onnx_dir=$dir/onnx
if [ -z "$dir" ]; then
  onnx_dir=build/gpu-onnx
  prepare_onnx "$onnx_dir" || status=1
fi
for so in "$onnx_dir"/*.so; do
  stem=${so%.so}
  "$bin/rlx-run" "$so" --fn main --weights "$stem.safetensors" \
    --input "$stem.in.npy" --output "$stem.out.npy" >/dev/null || status=1
done
python3 bench/gpu_onnx_models.py check "$onnx_dir" || status=1
"$bin/rlx-run" "$onnx_dir/light_resnet50.so" --fn main \
  --weights "$onnx_dir/light_resnet50.safetensors" \
  --input "$onnx_dir/light_resnet50.in.npy" --benchmark 50 || status=1
exit $status
