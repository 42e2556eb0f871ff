#!/usr/bin/env bash
# Post-training int8 quantization of the trained classifier: check.sh
# trains and deploys it in f32, then rlxc compiles the same predict.mlir
# with int8 matmuls, calibrated on training images and with ranges measured
# per call. Each must be within half a point of the f32 accuracy on the
# test images.
# usage: check_int8.sh TRAIN_DIGITS RLXC RLX_RUN OUT_DIR EPOCHS
set -euo pipefail
train=$1 rlxc=$2 run=$3 out=$4 epochs=$5
bash "$(dirname "$0")/check.sh" "$train" "$rlxc" "$run" "$out" "$epochs"
f32=$(sed -n 's/^accuracy: f32\[\] = \[\([0-9.e-]*\)\]/\1/p' "$out/run.log")
accuracy_of() { # ARTIFACT
  "$run" "$1" --fn predict --weights "$out/digits.safetensors" \
    --input x="$out/test_x.npy" --input labels="$out/test_labels.npy" |
    sed -n 's/^accuracy: f32\[\] = \[\([0-9.e-]*\)\]/\1/p'
}
"$rlxc" "$out/predict.mlir" --quantize=int8 \
  --calibrate x="$out/calibration_x.npy" --weights "$out/digits.safetensors" \
  -o "$out/predict-int8.so"
"$rlxc" "$out/predict.mlir" --quantize=int8 -o "$out/predict-int8-dynamic.so"
# The int8 kernel is what runs: its matmuls take i8 operands (on a CPU
# with VNNI, the weights prepacked in the prepare entry: [panels, k groups,
# 128] i8).
"$rlxc" "$out/predict.mlir" --quantize=int8 --compile-to=lower \
  -o "$out/predict-int8.lower.mlir"
grep -Eq 'linalg.matmul.*tensor<\?x64xi8>|tensor<\?x64xi8>, tensor<[0-9x]+x128xi8>.*rlx.packed_rhs' \
  "$out/predict-int8.lower.mlir"
calibrated=$(accuracy_of "$out/predict-int8.so")
dynamic=$(accuracy_of "$out/predict-int8-dynamic.so")
awk -v f="$f32" -v c="$calibrated" -v d="$dynamic" 'BEGIN {
  printf "accuracy: f32 %s, int8 calibrated %s, int8 dynamic %s\n", f, c, d
  if (f - c > 0.005 || c - f > 0.005) { print "calibrated int8 is more than half a point from f32"; exit 1 }
  if (f - d > 0.005 || d - f > 0.005) { print "dynamic int8 is more than half a point from f32"; exit 1 }
  if (c == "" || d == "") exit 1 }'
