#!/usr/bin/env bash
# Installs the references bench/run-all.sh measures rlx against (run as
# root): oneDNN and PyTorch from Debian, JAX from PyPI into a virtual
# environment that also sees Debian's torch. Skips what is present; JAX is
# optional (a failed install leaves it out of the table).
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libdnnl-dev python3-torch python3-torchvision python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
venv=build/bench-venv
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
"$venv/bin/python" -c "import jax" 2>/dev/null ||
  "$venv/bin/pip" install -q jax || echo "bench: JAX did not install; left out"
"$venv/bin/python" -c "import onnxruntime" 2>/dev/null ||
  "$venv/bin/pip" install -q onnxruntime ||
  echo "bench: ONNX Runtime did not install; the ONNX table is left out"
# ONNX Runtime's quantizer (the int8 peer of rlxc --quantize=int8) imports
# ml_dtypes and onnx.reference (onnx 1.13 on; Debian's is older). NumPy
# stays below 2 for Debian's torch, and ml_dtypes at a release that runs
# on it.
"$venv/bin/python" -c "import onnxruntime.quantization" 2>/dev/null ||
  "$venv/bin/pip" install -q "numpy<2" "ml_dtypes==0.5.1" "onnx==1.17.0" ||
  echo "bench: ONNX Runtime's quantizer did not install; the int8 table is left out"
# IREE, the MLIR compiler peer: its ONNX importer needs the onnx above.
"$venv/bin/python" -c "import iree.compiler, iree.runtime" 2>/dev/null ||
  "$venv/bin/pip" install -q iree-base-compiler iree-base-runtime ||
  echo "bench: IREE did not install; its column reads -"
