#!/usr/bin/env python3
"""int8 inference: rlxc --quantize=int8 against ONNX Runtime's quantizer,
side by side.

Each model (the MLP 784-512-512-10 at batch 128 and 1, ResNet-50 at batch
1 when torchvision is installed, a 4-layer BERT-base encoder) is exported
by PyTorch (opset 17, random weights) and run in f32 and int8 by both:

- rlx: `rlxc model.onnx` (f32), `rlxc model.onnx --quantize=int8` (dynamic:
  activation ranges measured at each call) and `... --calibrate x=CAL.npy`
  (static ranges), timed by `rlx-run --benchmark` with RLX_NUM_THREADS=t;
- ONNX Runtime: the same file, `quantize_dynamic` (per-channel int8
  weights, dynamic activations: MatMulInteger / DynamicQuantizeLinear) and
  `quantize_static` (QDQ, per-channel weights, the same calibration batch),
  intra_op_num_threads=t, all graph optimizations;
- ort-qdq: ONNX Runtime's QDQ file itself compiled by `rlxc --quantize=int8`
  against ONNX Runtime running it (one model file, two engines).

Both quantize the same way (symmetric per-channel int8 weights, per-tensor
activations), so the int8 ratios compare kernels and fusion, not schemes.
Each int8 result's error is printed as its largest difference from the f32
output relative to the output's largest magnitude.

Usage: int8_inference.py BIN_DIR [--threads 1,2] [--calls N] [--models a,b]
                         [--dynamic-batch]
Prints `model threads variant rlx_ms ort_ms ratio rlx_err ort_err` (ratio =
rlx / ORT, lower is better)."""
import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

from onnx_inference import models, ort_ms, ort_session, rlx_ms


VARIANTS = ["f32", "int8-dynamic", "int8-static", "ort-qdq"]


def relative_error(got, want):
    return float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))


class Calibration:
    """ONNX Runtime's calibration reader over one batch."""

    def __init__(self, x):
        self.batches = iter([{"x": x}])

    def get_next(self):
        return next(self.batches, None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--models", default="")
    parser.add_argument("--dynamic-batch", action="store_true",
                        help="export with a dynamic batch dim")
    args = parser.parse_args()
    dynamic = args.dynamic_batch
    thread_counts = [int(t) for t in args.threads.split(",")]
    from onnxruntime import quantization as q
    wanted = set(filter(None, args.models.split(",")))
    scratch = tempfile.mkdtemp(prefix="rlx-int8-bench-")
    atexit.register(shutil.rmtree, scratch, True)
    rlxc = os.path.join(args.bin_dir, "rlxc")
    print("model threads variant rlx_ms ort_ms ratio rlx_err ort_err")
    for name, model, shape in models():
        if wanted and name not in wanted:
            continue
        model.eval()
        rng = np.random.default_rng(1)
        x = rng.standard_normal(shape).astype(np.float32)
        # Calibration data: other draws from the same distribution.
        cal = rng.standard_normal(((32 if dynamic else 1) * shape[0],) + shape[1:]).astype(np.float32)
        f32_onnx = os.path.join(scratch, name + ".onnx")
        with torch.no_grad():
            torch.onnx.export(model, torch.from_numpy(x), f32_onnx, opset_version=17,
                              input_names=["x"], output_names=["y"],
                              dynamic_axes={"x": {0: "batch"}} if dynamic else None)
        x_path, cal_path = (os.path.join(scratch, name + s) for s in ("_x.npy", "_cal.npy"))
        np.save(x_path, x)
        np.save(cal_path, cal)
        ort_files = {"f32": f32_onnx,
                     "int8-dynamic": os.path.join(scratch, name + "-dyn.onnx"),
                     "int8-static": os.path.join(scratch, name + "-static.onnx")}
        q.quantize_dynamic(f32_onnx, ort_files["int8-dynamic"], per_channel=True,
                           weight_type=q.QuantType.QInt8)
        q.quantize_static(f32_onnx, ort_files["int8-static"], Calibration(cal),
                          quant_format=q.QuantFormat.QDQ, per_channel=True,
                          activation_type=q.QuantType.QInt8,
                          weight_type=q.QuantType.QInt8,
                          extra_options={"ActivationSymmetric": True})
        # ort-qdq: ONNX Runtime's QDQ file itself, compiled by rlxc with
        # --quantize=int8 (its f32 matmuls and convs between the
        # quantize-dequantize pairs run in int8).
        ort_files["ort-qdq"] = ort_files["int8-static"]
        artifacts, weight_files = {}, {}
        for variant, source, flags in [
                ("f32", f32_onnx, []),
                ("int8-dynamic", f32_onnx, ["--quantize=int8"]),
                ("int8-static", f32_onnx, ["--quantize=int8", "--calibrate", "x=" + cal_path]),
                ("ort-qdq", ort_files["ort-qdq"], ["--quantize=int8"])]:
            artifacts[variant] = os.path.join(scratch, f"{name}-{variant}.so")
            weight_files[variant] = os.path.join(scratch, f"{name}-{variant}.safetensors")
            subprocess.run([rlxc, source, "-o", artifacts[variant],
                            "--weights-out", weight_files[variant]] + flags, check=True)
        # rlx first, with no ONNX Runtime session alive: a session's idle
        # threads spin on the cores rlx-run would use.
        rlx_out, rlx_time = {}, {}
        for variant in VARIANTS:
            y_path = os.path.join(scratch, f"{name}-{variant}_y.npy")
            subprocess.run([os.path.join(args.bin_dir, "rlx-run"), artifacts[variant],
                            "--weights", weight_files[variant], "--input", "x=" + x_path,
                            "--output", y_path], check=True, capture_output=True)
            rlx_out[variant] = np.load(y_path)
            for threads in thread_counts:
                rlx_time[variant, threads] = rlx_ms(
                    args.bin_dir, artifacts[variant], weight_files[variant], x_path,
                    threads, args.calls)
        want = None
        for threads in thread_counts:
            for variant in VARIANTS:
                session = ort_session(ort_files[variant], threads)
                ort_y = session.run(None, {"x": x})[0]
                if want is None:
                    want = ort_y
                o = ort_ms(session, x, args.calls)
                del session
                r = rlx_time[variant, threads]
                rlx_y = rlx_out[variant].reshape(want.shape)
                print(f"{name} {threads} {variant} {r:.3f} {o:.3f} {r / o:.2f} "
                      f"{relative_error(rlx_y, want):.1e} "
                      f"{relative_error(ort_y, want):.1e}", flush=True)

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
