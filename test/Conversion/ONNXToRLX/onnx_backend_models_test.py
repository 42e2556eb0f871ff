#!/usr/bin/env python3
"""ONNX's backend model tests: the `light` model zoo (AlexNet, DenseNet-121,
Inception v1 and v2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512,
each with its weights replaced by constants) and the `simple`,
`pytorch-converted` and `pytorch-operator` models, each compiled by `rlxc
model.onnx`, run by rlx-run and compared with the outputs stored beside it.

The data is the `onnx/backend/test/data` folder of PyPI's onnx wheel (Debian's
python3-onnx does not ship it), which scripts/install-deps.sh unpacks into
build/onnx-backend-data. A light model's input is what ONNX's own runner
feeds it (arange(n) / n in the input's shape, f32) and its output is the one
ONNX's reference evaluator stored; the other models store their inputs and
outputs as TensorProtos in test_data_set_*.

Each case is PASS, FAIL or UNSUPPORTED as in onnx_backend_node_test.py, and
the test fails when a case named in onnx_backend_models_passing.txt does
not pass (`--update` rewrites the list from this run).

Usage: onnx_backend_models_test.py RLXC RLX_RUN DATA_DIR SCRATCH_DIR
       [--update] [--only SUBSTRING]"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_common import (SKIP, compile_and_compare, require,  # noqa: E402
                         run_all, summarize)

np = require("numpy")
onnx = require("onnx")
from onnx import numpy_helper  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PASSING = os.path.join(HERE, "onnx_backend_models_passing.txt")
KINDS = ("light", "simple", "pytorch-converted", "pytorch-operator")
# ONNX's runner compares model outputs at rtol 1e-3 and atol 1e-7; atol is
# 1e-5 here: f32 convolutions summed in another order than the reference's
# differ by a few ulps of the partial sums near zero outputs.
RTOL, ATOL = 1e-3, 1e-5


def load_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def light_inputs(model):
    """What ONNX's runner feeds a light model: arange(n) / n, f32, in each
    graph input's shape (dims without a value are 1)."""
    inits = {t.name for t in model.graph.initializer}
    inputs = []
    for x in model.graph.input:
        if x.name in inits:
            continue
        shape = tuple(d.dim_value if d.HasField("dim_value") else 1
                      for d in x.type.tensor_type.shape.dim)
        n = int(np.prod(shape))
        inputs.append((np.arange(n).reshape(shape) / n).astype(np.float32))
    return inputs


def collect(data_dir):
    """{case name: (model path, loader of its data sets)}."""
    cases = {}
    for path in sorted(glob.glob(os.path.join(data_dir, "light", "*.onnx"))):
        name = "light/" + os.path.splitext(os.path.basename(path))[0]

        def data(model, path=path):
            stem = os.path.splitext(path)[0]
            outputs = [load_tensor(f"{stem}_output_{i}.pb")
                       for i in range(len(model.graph.output))]
            return [(light_inputs(model), outputs)]
        cases[name] = (path, data)
    for kind in KINDS[1:]:
        for folder in sorted(glob.glob(os.path.join(data_dir, kind, "*"))):
            path = os.path.join(folder, "model.onnx")
            if not os.path.exists(path):
                continue

            def data(model, folder=folder):
                sets = []
                for s in sorted(glob.glob(os.path.join(folder, "test_data_set_*"))):
                    count = lambda what: len(glob.glob(os.path.join(s, what + "_*.pb")))
                    sets.append((
                        [load_tensor(os.path.join(s, f"input_{i}.pb"))
                         for i in range(count("input"))],
                        [load_tensor(os.path.join(s, f"output_{i}.pb"))
                         for i in range(count("output"))]))
                return sets
            cases[f"{kind}/{os.path.basename(folder)}"] = (path, data)
    return cases


def run_case(name, case, rlxc, rlx_run, scratch):
    path, data = case
    model = onnx.load(path)
    try:
        data_sets = data(model)
    except Exception as e:  # noqa: BLE001
        return "UNSUPPORTED", f"its stored data does not load: {e}"[:140]
    base = os.path.join(scratch, name.replace("/", "__"))
    copy = base + ".onnx"
    with open(path, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read())
    return compile_and_compare(rlxc, rlx_run, copy, model, data_sets, RTOL,
                               ATOL)


def main():
    args = sys.argv[1:]
    update = "--update" in args
    only = ""
    if "--only" in args:
        only = args.pop(args.index("--only") + 1)
    rlxc, rlx_run, data_dir, scratch = [a for a in args
                                        if not a.startswith("--")][:4]
    data_dir = os.path.join(data_dir, "onnx", "backend", "test", "data")
    if not os.path.isdir(os.path.join(data_dir, "light")):
        print(f"SKIP: ONNX's backend test data is not in {data_dir} "
              "(scripts/install-deps.sh unpacks it from PyPI's onnx wheel)")
        return SKIP
    os.makedirs(scratch, exist_ok=True)
    cases = {n: (n, c) for n, c in collect(data_dir).items() if only in n}
    results = run_all(cases, lambda item: run_case(*item, rlxc, rlx_run,
                                                   scratch))
    return summarize(results, PASSING, "ONNX backend model tests", update)


if __name__ == "__main__":
    sys.exit(main())
