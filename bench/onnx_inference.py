#!/usr/bin/env python3
"""Inference from ONNX, rlx against ONNX Runtime side by side.

Each model is exported by PyTorch (`torch.onnx.export`, opset 17, random
weights), compiled by `rlxc model.onnx` (its initializers written beside the
artifact as model.safetensors) and timed by `rlx-run --benchmark` with
RLX_NUM_THREADS=t; the same file runs in ONNX Runtime (CPU provider,
intra_op_num_threads=t, all graph optimizations) with the same input, and
in IREE (PyPI's iree-base-compiler and iree-base-runtime: `iree-import-onnx`,
`iree-compile` for llvm-cpu on the host CPU, `iree-benchmark-module` on the
local-task device with t workers) where those are installed and the model
imports. Outputs are compared first (relative 1e-3), then each prints its
median over the calls.

Models: the MLP 784-512-512-10 at batch 128 and batch 1; ResNet-50 at batch
1 and 8, 224x224 (torchvision's, random weights; skipped without
torchvision); a BERT-base-shaped encoder of 4 and of 12 layers (hidden
768, 12 heads, sequence 128, batch 1); an LSTM 256 -> 512 over 64 steps at batch
8.

Usage: onnx_inference.py BIN_DIR [--threads 1,2] [--calls N] [--models a,b]
Prints `model threads rlx_ms ort_ms ratio iree_ms iree_ratio` lines (ratio =
rlx / ORT, iree_ratio = rlx / IREE, lower is better; `-` where IREE is
missing or failed, with its reason on stderr)."""
import argparse
import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

nn = torch.nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = (nn.Linear(784, 512), nn.Linear(512, 512),
                                        nn.Linear(512, 10))

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class EncoderLayer(nn.Module):
    """BERT's layer written out (no fused kernels to export)."""

    def __init__(self, hidden=768, heads=12, ffn=3072):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.up, self.down = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).split(h, dim=-1)
        split = lambda t: t.reshape(b, s, self.heads, h // self.heads).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        att = torch.softmax(q @ k.transpose(-1, -2) / (h // self.heads) ** 0.5, -1)
        ctx = (att @ v).transpose(1, 2).reshape(b, s, h)
        x = self.ln1(x + self.proj(ctx))
        return self.ln2(x + self.down(nn.functional.gelu(self.up(x))))


class LSTM(nn.Module):
    """One LSTM layer (ONNX's LSTM node: an rlx.scan of matmul steps)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(256, 512, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


class Encoder(nn.Module):
    def __init__(self, layers=4):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer() for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def models():
    torch.manual_seed(0)
    yield "mlp_b128", MLP(), (128, 784)
    yield "mlp_b1", MLP(), (1, 784)
    try:
        import torchvision
        yield "resnet50_b1", torchvision.models.resnet50(), (1, 3, 224, 224)
        yield "resnet50_b8", torchvision.models.resnet50(), (8, 3, 224, 224)
    except ImportError:
        print("# resnet50 skipped: torchvision is not installed", file=sys.stderr)
    yield "bert4_s128", Encoder(), (1, 128, 768)
    yield "bert12_s128", Encoder(12), (1, 128, 768)
    yield "lstm_b8_s64", LSTM(), (8, 64, 256)


def rlx_ms(bin_dir, artifact, weights, x_path, threads, calls):
    env = dict(os.environ, RLX_NUM_THREADS=str(threads))
    out = subprocess.run(
        [os.path.join(bin_dir, "rlx-run"), artifact, "--weights", weights,
         "--input", "x=" + x_path, "--benchmark", str(calls)],
        env=env, capture_output=True, text=True, check=True).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def iree_tool(name):
    """IREE's command-line tools, from the interpreter's environment."""
    tool = os.path.join(os.path.dirname(sys.executable), name)
    return tool if os.access(tool, os.X_OK) else shutil.which(name)


def iree_compile(onnx_path, x_path, want_path):
    """Imports and compiles the model for IREE's CPU backend on this CPU, runs
    it once and checks its output against rlx's. Returns (vmfb, function) or
    None, printing why on stderr."""
    tools = [iree_tool(t) for t in ("iree-import-onnx", "iree-compile",
                                    "iree-run-module", "iree-benchmark-module")]
    if not all(tools):
        print("# IREE left out: iree-base-compiler/-runtime not installed",
              file=sys.stderr)
        return None
    base = os.path.splitext(onnx_path)[0]
    mlir, vmfb, y = base + ".iree.mlir", base + ".vmfb", base + "_iree_y.npy"
    try:
        subprocess.run([tools[0], onnx_path, "-o", mlir], check=True,
                       capture_output=True, text=True)
        subprocess.run([tools[1], mlir, "--iree-input-type=onnx",
                        "--iree-hal-target-device=local",
                        "--iree-hal-local-target-device-backends=llvm-cpu",
                        "--iree-llvmcpu-target-cpu=host", "-o", vmfb],
                       check=True, capture_output=True, text=True)
        function = re.search(r"func\.func @([\w$.]+)", open(mlir).read()).group(1)
        subprocess.run([tools[2], "--module=" + vmfb, "--device=local-task",
                        "--function=" + function, "--input=@" + x_path,
                        "--output=@" + y], check=True, capture_output=True,
                       text=True)
    except subprocess.CalledProcessError as e:
        reason = (e.stderr or "").strip().splitlines()[-1:] or ["no message"]
        print(f"# IREE failed on {os.path.basename(onnx_path)}: {reason[0]}",
              file=sys.stderr)
        return None
    want = np.load(want_path)
    got = np.load(y).reshape(want.shape)
    err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
    if err > 1e-3:
        print(f"# {os.path.basename(onnx_path)}: IREE differs from rlx (max "
              f"relative error {err:.2e})", file=sys.stderr)
    return vmfb, function


def iree_ms(compiled, x_path, threads, calls):
    """Median of `calls` single-call repetitions on `threads` workers."""
    vmfb, function = compiled
    out = subprocess.run(
        [iree_tool("iree-benchmark-module"), "--module=" + vmfb,
         "--device=local-task", f"--task_topology_max_group_count={threads}",
         "--function=" + function, "--input=@" + x_path,
         f"--benchmark_repetitions={calls}", "--benchmark_min_time=1x",
         "--benchmark_report_aggregates_only=true"],
        capture_output=True, text=True, check=True).stdout
    value, unit = re.search(r"real_time_median\s+([0-9.]+) (ns|us|ms|s)\b",
                            out).groups()
    return float(value) * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[unit]


def ort_session(path, threads):
    """ONNX Runtime on `threads` threads, every graph optimization."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def ort_ms(session, x, calls):
    feed = {"x": x}
    session.run(None, feed)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--models", default="")
    args = parser.parse_args()
    import onnxruntime  # noqa: F401 (missing: fail before compiling anything)
    wanted = set(filter(None, args.models.split(",")))
    scratch = tempfile.mkdtemp(prefix="rlx-onnx-bench-")
    # Models, weights and IREE's modules: a GB a run; gone however it ends.
    atexit.register(shutil.rmtree, scratch, True)
    print("model threads rlx_ms ort_ms ratio iree_ms iree_ratio")
    for name, model, shape in models():
        if wanted and name not in wanted:
            continue
        model.eval()
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        path = os.path.join(scratch, name + ".onnx")
        with torch.no_grad():
            torch.onnx.export(model, torch.from_numpy(x), path, opset_version=17,
                              input_names=["x"], output_names=["y"])
        artifact = os.path.join(scratch, name + ".so")
        weights = os.path.join(scratch, name + ".safetensors")
        compile_start = time.perf_counter()
        subprocess.run([os.path.join(args.bin_dir, "rlxc"), path, "-o", artifact],
                       check=True)
        compile_s = time.perf_counter() - compile_start
        x_path = os.path.join(scratch, name + "_x.npy")
        np.save(x_path, x)
        y_path = os.path.join(scratch, name + "_y.npy")
        subprocess.run([os.path.join(args.bin_dir, "rlx-run"), artifact,
                        "--weights", weights, "--input", "x=" + x_path,
                        "--output", y_path], check=True, capture_output=True)
        compiled = iree_compile(path, x_path, y_path)
        for threads in [int(t) for t in args.threads.split(",")]:
            # rlx first, with no ONNX Runtime session alive: a session's idle
            # threads may spin on the cores rlx-run would use (as in
            # int8_inference.py).
            r = rlx_ms(args.bin_dir, artifact, weights, x_path, threads, args.calls)
            session = ort_session(path, threads)
            want = session.run(None, {"x": x})[0]
            got = np.load(y_path).reshape(want.shape)
            err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
            if err > 1e-3:
                print(f"# {name}: rlx differs from ONNX Runtime (max relative "
                      f"error {err:.2e})", file=sys.stderr)
            o = ort_ms(session, x, args.calls)
            del session
            i = iree_ms(compiled, x_path, threads, args.calls) if compiled else None
            iree = f"{i:.3f} {r / i:.2f}" if i else "- -"
            print(f"{name} {threads} {r:.3f} {o:.3f} {r / o:.2f} {iree}", flush=True)
        print(f"# {name}: rlxc took {compile_s:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
