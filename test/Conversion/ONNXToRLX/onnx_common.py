"""Shared plumbing of the ONNX import tests: running rlxc and rlx-run on a
model and reading rlx-run's safetensors outputs (parsed here, so the check
does not go through rlx's own reader)."""
import json
import os
import struct
import subprocess
import sys

import numpy as np

SKIP = 77  # ctest SKIP_RETURN_CODE


def require(module):
    try:
        return __import__(module)
    except ImportError:
        print(f"SKIP: python module '{module}' is missing (scripts/install-deps.sh "
              f"installs python3-{module})")
        sys.exit(SKIP)


DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64,
          "I32": np.int32, "I8": np.int8, "BOOL": np.bool_, "F16": np.float16}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        lo, hi = info["data_offsets"]
        raw = data[base + lo:base + hi]
        if info["dtype"] == "BF16":  # the high half of an f32
            bits = np.frombuffer(raw, np.uint16).astype(np.uint32) << 16
            out[name] = bits.view(np.float32).reshape(info["shape"])
            continue
        out[name] = np.frombuffer(raw, DTYPES[info["dtype"]]).reshape(info["shape"])
    return out


def run(argv, expect_ok=True):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if expect_ok and p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({p.returncode}):\n"
                           f"{p.stdout}{p.stderr}")
    return p


def compile_and_run(rlxc, rlx_run, model_path, input_sets, extra=(),
                    fn="main"):
    """Compiles model_path with rlxc, then runs rlx-run (entry point fn)
    once per dict of inputs in input_sets; returns one dict of outputs per
    set."""
    stem = os.path.splitext(model_path)[0]
    run([rlxc, model_path, "-o", stem + ".so", *extra])
    results = []
    for k, inputs in enumerate(input_sets):
        args = [rlx_run, stem + ".so", "--fn", fn, "--weights",
                stem + ".safetensors"]
        for name, value in inputs.items():
            path = f"{stem}.in{k}.{len(args)}.npy"
            np.save(path, value)
            args += ["--input", f"{name}={path}"]
        out = f"{stem}.out{k}.safetensors"
        run(args + ["--outputs", out])
        results.append(read_safetensors(out))
    return results


def close(expected, got, rtol=1e-4, atol=1e-5):
    """|got - expected| <= rtol |expected| + atol, elementwise; exact for
    integers and booleans. Returns a message or ''."""
    expected = np.asarray(expected)
    got = np.asarray(got)
    if expected.shape != got.shape:
        return f"shape {got.shape}, expected {expected.shape}"
    if expected.dtype.kind in "biu":
        bad = np.argwhere(expected != got)
        return "" if bad.size == 0 else \
            f"{bad.shape[0]} elements differ, first at {tuple(bad[0])}"
    err = np.abs(got.astype(np.float64) - expected.astype(np.float64))
    tol = rtol * np.abs(expected.astype(np.float64)) + atol
    if np.all(err <= tol) and not np.any(np.isnan(got) != np.isnan(expected)):
        return ""
    i = np.unravel_index(np.argmax(err - tol), err.shape)
    return (f"max excess at {tuple(int(v) for v in i)}: got {got[i]}, "
            f"expected {expected[i]}")
