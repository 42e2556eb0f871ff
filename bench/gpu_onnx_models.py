#!/usr/bin/env python3
"""ONNX's light model zoo (AlexNet, DenseNet-121, Inception v1/v2, ResNet-50,
ShuffleNet, SqueezeNet, VGG-19, ZFNet-512, weights replaced by constants) on
a GPU, for bench/gpu_check.sh.

  gpu_onnx_models.py prepare DATA_DIR OUT_DIR   (here, with rlxc, numpy and
      onnx): writes, per model, NAME.in.npy (what ONNX's runner feeds it:
      arange(n) / n in the input's shape) and NAME.want.npy (the output ONNX's
      reference evaluator stored); gpu_check.sh compiles NAME.so beside them.
  gpu_onnx_models.py check OUT_DIR              (there, with numpy): compares
      each NAME.out.npy with NAME.want.npy at ONNX's runner's rtol 1e-3 and
      atol 1e-5 (as test/Conversion/ONNXToRLX does on the CPU); exits 1 if
      one differs or is missing.
"""
import glob
import os
import sys

import numpy as np


def prepare(data_dir, out_dir):
    import onnx
    from onnx import numpy_helper
    os.makedirs(out_dir, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(data_dir, "light", "*.onnx"))):
        name = os.path.splitext(os.path.basename(path))[0]
        model = onnx.load(path)
        inits = {t.name for t in model.graph.initializer}
        (graph_input,) = [x for x in model.graph.input if x.name not in inits]
        shape = tuple(d.dim_value if d.HasField("dim_value") else 1
                      for d in graph_input.type.tensor_type.shape.dim)
        n = int(np.prod(shape))
        np.save(os.path.join(out_dir, name + ".in.npy"),
                (np.arange(n).reshape(shape) / n).astype(np.float32))
        tensor = onnx.TensorProto()
        with open(os.path.splitext(path)[0] + "_output_0.pb", "rb") as f:
            tensor.ParseFromString(f.read())
        np.save(os.path.join(out_dir, name + ".want.npy"),
                numpy_helper.to_array(tensor))
        print(name)


def check(out_dir):
    failed = 0
    for want_path in sorted(glob.glob(os.path.join(out_dir, "*.want.npy"))):
        name = os.path.basename(want_path)[: -len(".want.npy")]
        out_path = os.path.join(out_dir, name + ".out.npy")
        if not os.path.exists(out_path):
            print(f"FAIL {name}: no output")
            failed += 1
            continue
        want, got = np.load(want_path), np.load(out_path)
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-3,
                                                      atol=1e-5):
            err = np.abs(got - want).max() if got.shape == want.shape else None
            print(f"FAIL {name}: shape {got.shape} vs {want.shape}, "
                  f"max |diff| {err}")
            failed += 1
        else:
            print(f"ok   {name}: max |diff| {np.abs(got - want).max():.2e}")
    return failed


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        sys.exit(1 if check(sys.argv[2]) else 0)
    else:
        sys.exit(__doc__)
