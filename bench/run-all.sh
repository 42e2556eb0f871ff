#!/usr/bin/env bash
# Runs every CPU benchmark and prints one table of figures and
# ratios: matmul vs oneDNN/OpenBLAS (1 and 2 threads), ResNet-50's convs vs
# oneDNN (1 and 2 threads), the fused elementwise
# chain vs memcpy and PyTorch/JAX, the MLP forward, forward+backward and
# Adam train step vs PyTorch eager (its faster of 1 and 2 threads) and JAX
# jit (the step built in MLIR and the same step built by the C++ frontend),
# the train step's peak workspace and its compile time, and the loops:
# scan per-step cost and an LSTM forward+backward vs PyTorch and JAX, and
# the workspace of a checkpointed scan; inference of ONNX models (an MLP,
# ResNet-50, a 4-layer BERT-base encoder) vs ONNX Runtime, in f32 and
# quantized to int8 (rlxc --quantize=int8 vs ONNX Runtime's quantizer), and
# a dense layer with block-scaled (MX) weights vs ONNX Runtime's MatMulNBits.
# Usage: bench/run-all.sh [--no-install] (installs references, builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != "--no-install" ]; then
  ./scripts/install-deps.sh
  ./bench/install-references.sh
fi
./scripts/build.sh >/dev/null
bin=build/bin
python=build/bench-venv/bin/python
[ -x "$python" ] || python=/usr/bin/python3
threads=$(nproc)

echo "== matmul (GFLOP/s) =="
for t in 1 "$threads"; do
  OMP_NUM_THREADS=$t "$bin/rlx-bench-matmul" --threads "$t" 256 512 1024 2048 129x257x511 |
    { [ "$t" = 1 ] && cat || tail -n +2; }
done

echo
echo "== convolutions, every distinct ResNet-50 conv at batch 1 (ms; ratio = oneDNN's faster layout / rlx, higher is better) =="
for t in 1 "$threads"; do
  # Binds rlx's threads; the bench runs oneDNN first so its pool is not bound.
  KMP_AFFINITY=compact "$bin/rlx-bench-conv" --threads "$t" |
    { [ "$t" = 1 ] && cat || tail -n +2; }
done

echo
echo "== convolution gradients (training), every distinct ResNet-50 conv at batch 1, one thread (ms; ratios = oneDNN's backward / rlx) =="
KMP_AFFINITY=compact "$bin/rlx-bench-conv" --threads 1 --backward

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Processes that run only rlx bind its OpenMP threads to cores (see
# docs/architecture.md); the matmul bench above shares its process with
# oneDNN's and OpenBLAS's pools and leaves binding alone.
export KMP_AFFINITY=compact
for t in 1 "$threads"; do
  RLX_NUM_THREADS=$t "$bin/rlx-bench-mlp" 50 | sed -n "s/^rlx /rlx$t /p" >>"$out"
  # The same step built by the C++ frontend (make_train_step).
  RLX_CACHE=0 RLX_NUM_THREADS=$t "$bin/rlx-bench-train-step" |
    sed -n -e "s/^dynamic batch:.*median \([0-9.]*\).*/rlx$t frontend_train_step_b128 \1/p" \
      -e "s/^bf16 static *batch:.*median \([0-9.]*\).*/rlx$t frontend_train_step_bf16_b128 \1/p" >>"$out"
  RLX_NUM_THREADS=$t "$bin/rlx-bench-elementwise" |
    sed -n -e "s/^rlx /rlx$t /p" -e "s/^memcpy /memcpy$t /p" >>"$out"
done
"$python" bench/reference.py 2>/dev/null >>"$out" || true

figure() { awk -v f="$1" -v n="$2" '$1 == f && $2 == n { print $3 }' "$out"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "" && b > 0) printf "%.2f", a / b; else printf "-" }'; }

echo
echo "== MLP 784-512-512-10 and elementwise chain (ms; ratio = rlx / reference, lower is better) =="
printf "%-24s %9s %9s %9s %9s %9s %9s\n" figure "rlx 1T" "rlx ${threads}T" torch jax "vs torch" "vs jax"
for name in forward_b128 forward_b1024 forward_backward_b128 train_step_adam_b128 frontend_train_step_b128 frontend_train_step_bf16_b128 elementwise_ms; do
  r1=$(figure rlx1 "$name"); rn=$(figure "rlx$threads" "$name")
  ref=$name
  [ "$name" = frontend_train_step_b128 ] && ref=train_step_adam_b128
  # Mixed precision against PyTorch's CPU autocast bf16 step.
  [ "$name" = frontend_train_step_bf16_b128 ] && ref=train_step_adam_b128_autocast_bf16
  pt=$(figure torch "$ref"); jx=$(figure jax "$ref")
  best=$(awk -v a="$r1" -v b="$rn" 'BEGIN { print (b != "" && b < a) ? b : a }')
  printf "%-24s %9s %9s %9s %9s %9s %9s\n" "$name" "$r1" "$rn" "${pt:--}" "${jx:--}" \
    "$(ratio "$best" "$pt")" "$(ratio "$best" "$jx")"
done
echo
echo "== elementwise chain bandwidth (GB/s of x) =="
for t in 1 "$threads"; do
  echo "threads $t: rlx $(figure rlx$t elementwise_GBps) memcpy $(figure memcpy$t memcpy_GBps)" \
    "ratio $(ratio "$(figure memcpy$t memcpy_ms)" "$(figure rlx$t elementwise_ms)")"
done
echo
echo "== train step =="
echo "workspace arena vs liveness lower bound (rlxc --stats of the bench's module):"
so=$(mktemp --suffix=.so)
"$bin/rlxc" /tmp/rlx-bench-mlp.mlir -o "$so" --stats 2>&1 | sed -n '/workspace/,$p' | tail -n +2
rm -f "$so"
echo "rlxc compile time of the MLP module (logits, grads, step), s: $(figure rlx1 compile_s)"

echo
echo "== loops (rlx-bench-scan vs bench/reference_scan.py) =="
scan_out=$(mktemp)
for t in 1 "$threads"; do
  RLX_NUM_THREADS=$t "$bin/rlx-bench-scan" | sed -n "s/^rlx /rlx$t /p" >>"$scan_out"
done
# PyTorch from Debian's Python, JAX from the bench venv (each where it imports).
/usr/bin/python3 bench/reference_scan.py 2>/dev/null >>"$scan_out" || true
"$python" bench/reference_scan.py 2>/dev/null | grep '^jax ' >>"$scan_out" || true
sfig() { awk -v f="$1" -v n="$2" '$1 == f && $2 == n { print $3 }' "$scan_out"; }
for name in scan_step_us lstm_fwd_bwd_ms; do
  r1=$(sfig rlx1 "$name"); rn=$(sfig "rlx$threads" "$name")
  best=$(awk -v a="$r1" -v b="$rn" 'BEGIN { print (b != "" && b < a) ? b : a }')
  pt=$(sfig torch "$name"); jx=$(sfig jax "$name")
  printf "%-24s rlx %9s (1T %s, %sT %s)  torch %9s  jax %9s  vs torch %s  vs jax %s\n" \
    "$name" "$best" "$r1" "$threads" "$rn" "${pt:--}" "${jx:--}" \
    "$(ratio "$best" "$pt")" "$(ratio "$best" "$jx")"
done
echo "scan backward workspace over 1,000 steps, stored vs checkpoint_every=32:" \
  "$(sfig rlx1 checkpoint_workspace_stored) vs $(sfig rlx1 checkpoint_workspace_every32) bytes," \
  "ratio $(sfig rlx1 checkpoint_workspace_ratio) (gradients differ by $(sfig rlx1 checkpoint_grad_max_abs_diff))"
rm -f "$scan_out"

echo
echo "== inference from ONNX vs ONNX Runtime (bench/onnx_inference.py; ms, ratio = rlx / ORT, lower is better) =="
"$python" bench/onnx_inference.py "$bin" --threads "1,$threads" 2>/dev/null ||
  echo "(skipped: needs torch and onnxruntime in $python)"

echo
echo "== int8 inference vs ONNX Runtime's quantizer (bench/int8_inference.py; ms, ratio = rlx / ORT, err = max |y - y_f32| / max |y_f32|) =="
"$python" bench/int8_inference.py "$bin" --threads "1,$threads" 2>/dev/null ||
  echo "(skipped: needs torch and onnxruntime's quantizer in $python)"

echo
echo "== block-scaled (MX) weights vs ONNX Runtime's 4-bit MatMulNBits (bench/mx_matmul.py; ms, ratio = rlx / ORT, lower is better) =="
"$python" bench/mx_matmul.py "$bin" --threads "1,$threads" 2>/dev/null ||
  echo "(skipped: needs onnx and onnxruntime in $python)"
