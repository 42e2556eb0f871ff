#!/usr/bin/env bash
# The main job: install, build, compile the example MLP with rlxc and run it
# with rlx-run, its weights bound by name from a safetensors file.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
mkdir -p build/examples
build/bin/rlxc examples/mlp/model.mlir -o build/examples/mlp.so
build/bin/rlx-run build/examples/mlp.so --fn forward \
  --weights examples/mlp/weights.safetensors \
  --input x=examples/mlp/x.npy
