#!/usr/bin/env bash
# The example's test: a shortened training run that must still reach 95%
# test accuracy, then the deployment path: rlxc compiles the exported
# inference MLIR unchanged and rlx-run, binding the saved weights by name,
# reproduces the accuracy.
# With DEVICE (vulkan, ...) training runs there and the inference artifact is
# compiled for it too; further arguments go to the training (--qat FORMAT).
# usage: check.sh TRAIN_DIGITS RLXC RLX_RUN OUT_DIR EPOCHS [DEVICE [ARGS...]]
set -euo pipefail
train=$1 rlxc=$2 run=$3 out=$4 epochs=$5 device=${6:-cpu}
rm -rf "$out" && mkdir -p "$out"
"$train" --epochs "$epochs" --out "$out" --device "$device" "${@:7}" | tee "$out/train.log"
trained=$(sed -n 's/^test accuracy: \([0-9.]*\).*/\1/p' "$out/train.log")
"$rlxc" "$out/predict.mlir" --target="$device" -o "$out/predict.so"
"$run" "$out/predict.so" --fn predict --weights "$out/digits.safetensors" \
  --input x="$out/test_x.npy" --input labels="$out/test_labels.npy" \
  | tee "$out/run.log" | grep accuracy
deployed=$(sed -n 's/^accuracy: f32\[\] = \[\([0-9.e-]*\)\]/\1/p' "$out/run.log")
awk -v a="$trained" -v b="$deployed" 'BEGIN {
  d = a - b; if (d < 0) d = -d;
  if (b < 0.95) { print "deployed accuracy " b " below 0.95"; exit 1 }
  if (d > 1e-3) { print "deployed " b " differs from trained " a; exit 1 }
  print "deployed accuracy " b " reproduces the trained " a }'
test -s "$out/loss.svg"
