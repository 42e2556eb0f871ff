#!/usr/bin/env bash
# The example's test: a shortened training run whose loss must fall below
# the text's unigram entropy (char_rnn exits non-zero otherwise), then the
# deployment path: rlxc compiles the exported generator unchanged and
# rlx-run, binding the saved weights by name, samples the same characters
# from the same key as the in-process run (same key, same bits).
# usage: check.sh CHAR_RNN RLXC RLX_RUN OUT_DIR STEPS
set -euo pipefail
train=$1 rlxc=$2 run=$3 out=$4 steps=$5
rm -rf "$out" && mkdir -p "$out"
"$train" --steps "$steps" --sample 200 --out "$out" | tee "$out/train.log"
grep -q '^final loss' "$out/train.log"
"$rlxc" "$out/sample.mlir" -o "$out/sample.so"
"$run" "$out/sample.so" --weights "$out/char_rnn.safetensors" \
  --input key="$out/key.npy" --input first="$out/first.npy" \
  --output "$out/deployed_ids.npy" >/dev/null
cmp "$out/sampled_ids.npy" "$out/deployed_ids.npy"
echo "the deployed generator reproduces the in-process samples"
test -s "$out/loss.svg"
