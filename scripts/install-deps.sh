#!/usr/bin/env bash
# Installs everything rlx needs to build and test on Debian 12 (run as root).
# Quick the second time: packages already present are skipped.
set -euo pipefail

packages=(
  # build
  cmake ninja-build ccache git pkg-config
  # LLVM/MLIR 22.1 (bookworm-security)
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22 libclang-rt-22-dev
  # the thread pool of parallel kernels
  libomp-22-dev
  # C++ libraries
  libcli11-dev nlohmann-json3-dev libgtest-dev
  # benchmark reference
  libopenblas-dev
  # ONNX import (conversion/ONNXToRLX): the protobuf schema, checker, shape
  # inference and version converter; its tests build models with python3-onnx
  # and export them with PyTorch
  libonnx-dev libprotobuf-dev python3-onnx python3-torch python3-numpy
  # data-parallel training: MPI (runtime/mpi builds librlx-mpi.so against
  # it; the runtime dlopens it, so it is optional at run time)
  openmpi-bin libopenmpi-dev
  # the venv of tests that need packages Debian lacks (ml_dtypes)
  python3-venv
  # GPU targets: Vulkan runs for real on Mesa's lavapipe (a CPU Vulkan
  # device); ROCm device libraries give the bitcode hsaco links against.
  # CUDA comes from /usr/local/cuda (ptxas validates the PTX).
  mesa-vulkan-drivers libvulkan-dev vulkan-tools spirv-tools glslang-tools
  rocm-device-libs
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "rlx: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Tests that compare against PyPI packages Debian does not ship run in a
# venv over Debian's python (numpy, torch): ml_dtypes, the reference of the
# narrow float casts (test numerics.narrow-floats).
cd "$(dirname "$0")/.."
venv=build/test-venv
if ! "$venv/bin/python" -c "import ml_dtypes" 2>/dev/null; then
  echo "rlx: installing ml_dtypes into $venv"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q ml_dtypes
fi

# ONNX's backend test models (the light model zoo, simple, pytorch-converted,
# pytorch-operator; test onnx.backend-models) are in PyPI's onnx wheel, not in
# Debian's python3-onnx: the wheel is downloaded and only that data unpacked.
onnx_data=build/onnx-backend-data
onnx_wheel_version=1.17.0
if [ ! -f "$onnx_data/$onnx_wheel_version" ]; then
  echo "rlx: unpacking ONNX's backend test models into $onnx_data"
  tmp=$(mktemp -d)
  if "$venv/bin/pip" download -q --no-deps --only-binary=:all: -d "$tmp" \
       "onnx==$onnx_wheel_version"; then
    rm -rf "$onnx_data"
    "$venv/bin/python" - "$tmp"/onnx-*.whl "$onnx_data" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1:3]
kinds = ("light", "simple", "pytorch-converted", "pytorch-operator")
with zipfile.ZipFile(wheel) as z:
    z.extractall(out, [n for n in z.namelist() if any(
        n.startswith(f"onnx/backend/test/data/{k}/") for k in kinds)])
PY
    touch "$onnx_data/$onnx_wheel_version"
  else
    echo "rlx: could not download onnx==$onnx_wheel_version; onnx.backend-models will be skipped"
  fi
  rm -rf "$tmp"
fi

# The digits data set of examples/train_digits (1797 8x8 images): shipped in
# Debian's python3-sklearn, taken out of the .deb without installing it.
digits=data/digits.csv.gz
if [ ! -f "$digits" ]; then
  echo "rlx: fetching $digits from python3-sklearn"
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download python3-sklearn >/dev/null 2>&1 ||
     { apt-get update -qq && apt-get download python3-sklearn; })
  dpkg-deb -x "$tmp"/python3-sklearn_*.deb "$tmp/x"
  mkdir -p data
  cp "$(find "$tmp/x" -name digits.csv.gz | head -n1)" "$digits"
  rm -rf "$tmp"
fi
