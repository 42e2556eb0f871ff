#!/usr/bin/env python3
"""Exports a small PyTorch MLP classifier to ONNX with a dynamic batch, and
an input and PyTorch's output as .npy, for `rlxc model.onnx`:

    /usr/bin/python3 examples/onnx/export_mlp.py /tmp/onnx_mlp
    rlxc /tmp/onnx_mlp/mlp.onnx -o /tmp/onnx_mlp/mlp.so   # + mlp.safetensors
    rlx-run /tmp/onnx_mlp/mlp.so --fn main --weights /tmp/onnx_mlp/mlp.safetensors \\
        --input images=/tmp/onnx_mlp/images.npy --output /tmp/onnx_mlp/logits.npy
    /usr/bin/python3 -c "import numpy as n; d='/tmp/onnx_mlp/'; \\
        print(abs(n.load(d+'logits.npy') - n.load(d+'expected.npy')).max())"

Needs Debian's python3-torch (scripts/install-deps.sh installs it)."""
import os
import sys

import numpy as np
import torch
from torch import nn

out = sys.argv[1] if len(sys.argv) > 1 else "onnx_mlp"
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 128), nn.ReLU(),
                      nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10)).eval()
images = torch.rand(4, 1, 28, 28)
torch.onnx.export(model, images, os.path.join(out, "mlp.onnx"),
                  input_names=["images"], output_names=["logits"],
                  dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}},
                  opset_version=14)
np.save(os.path.join(out, "images.npy"), images.numpy())
with torch.no_grad():
    np.save(os.path.join(out, "expected.npy"), model(images).numpy())
print(f"wrote {out}/mlp.onnx, images.npy, expected.npy")
