#!/usr/bin/env python3
"""ONNX's own backend node tests (924 cases in python3-onnx 1.12, generated
by `onnx.backend.test.case.node.collect_testcases`: a one-op model, inputs,
and the outputs ONNX's NumPy reference computed), each compiled by `rlxc
model.onnx`, run by rlx-run and compared at the case's tolerances.

Each case is PASS, FAIL (wrong values, or rlxc/rlx-run failed after the
import succeeded, or crashed) or UNSUPPORTED (the importer refused the model
with an error: an op, attribute or type it does not map), and the summary
lists the unsupported ones grouped by reason. A case that rlx refuses
because an input it needs at import time (axes, shape, scales, pads, ...)
is a graph input runs again with those inputs made initializers, as
exported models have them. The test fails when a case
named in onnx_backend_node_passing.txt does not pass (the list only grows:
`--update` rewrites it from this run).

Usage: onnx_backend_node_test.py RLXC RLX_RUN SCRATCH_DIR [--update]
       [--only SUBSTRING]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_common import (SKIP, compile_and_compare, require,  # noqa: E402
                         run_all, summarize)

np = require("numpy")
# python3-onnx 1.12's case generators use aliases NumPy 1.24 removed.
for alias, value in [("float", float), ("int", int), ("bool", bool),
                     ("object", object), ("str", str), ("complex", complex)]:
    if alias not in np.__dict__:
        setattr(np, alias, value)
onnx = require("onnx")
import warnings  # noqa: E402

warnings.simplefilter("ignore")
from onnx.backend.test.case import node as node_cases  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PASSING = os.path.join(HERE, "onnx_backend_node_passing.txt")


# The .npy dtypes rlx-run reads.
NPY_DTYPES = {np.dtype(t) for t in (np.float16, np.float32, np.float64,
                                    np.bool_, np.int8, np.int16, np.int32,
                                    np.int64, np.uint8, np.uint16, np.uint32,
                                    np.uint64)}


# Cases whose stored outputs disagree with the current ONNX spec, not rlx.
KNOWN_DIFFERENCES = {
    "test_cast_FLOAT_to_BFLOAT16":
        "ONNX 1.12's reference truncates to bfloat16; rlx rounds to nearest "
        "even, as the spec says since ONNX 1.14",
}


def run_case(case, rlxc, rlx_run, d):
    if case.name in KNOWN_DIFFERENCES:
        return "UNSUPPORTED", KNOWN_DIFFERENCES[case.name]
    base = os.path.join(d, case.name)
    bf16 = onnx.TensorProto.BFLOAT16
    if any(i.type.tensor_type.elem_type == bf16 for i in case.model.graph.input):
        # ONNX's data holds them as uint16, which rlx-run reads as ui16.
        return "UNSUPPORTED", "a bfloat16 input (NumPy has no bfloat16)"
    for inputs, _ in case.data_sets:
        for value in inputs:
            if isinstance(value, (list, tuple)) or value is None:
                return "UNSUPPORTED", "a sequence or optional input"
            dtype = np.asarray(value).dtype
            if dtype not in NPY_DTYPES:
                return "UNSUPPORTED", f"an input of dtype {dtype} (rlx-run's .npy reader)"
    path = base + ".onnx"
    onnx.save(case.model, path)
    status, why = compile_and_compare(rlxc, rlx_run, path, case.model,
                                      case.data_sets, case.rtol, case.atol)
    if status == "UNSUPPORTED" and "known at import" in why:
        return run_with_constant_inputs(case, rlxc, rlx_run, base, why)
    return status, why


def with_constants(model, inputs, folded):
    """`model` with its graph inputs at the positions in `folded` made
    initializers holding `inputs`' values there."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    graph_inputs = list(m.graph.input)
    del m.graph.input[:]
    for i, vi in enumerate(graph_inputs):
        if i in folded:
            m.graph.initializer.append(
                onnx.numpy_helper.from_array(np.asarray(inputs[i]), vi.name))
        else:
            m.graph.input.append(vi)
    return m


def run_with_constant_inputs(case, rlxc, rlx_run, base, why):
    """A case whose node reads a shape-like input (axes, shape, scales,
    sizes, starts, pads, repeats, K, ...) that rlx needs at import time:
    ONNX's data gives it as a graph input, exported models as a constant.
    Run again with those inputs made initializers (every input but the
    first, then every input), each data set its own model; still
    unsupported (with the first reason) when that does not import."""
    n = len(case.model.graph.input)
    for folded in (set(range(1, n)), set(range(n))):
        if not folded:
            continue
        result = ("PASS", "")
        for k, (inputs, outputs) in enumerate(case.data_sets):
            model = with_constants(case.model, inputs, folded)
            path = f"{base}.const{len(folded)}.{k}.onnx"
            onnx.save(model, path)
            kept = [v for i, v in enumerate(inputs) if i not in folded]
            result = compile_and_compare(rlxc, rlx_run, path, model,
                                         [(kept, outputs)], case.rtol,
                                         case.atol)
            if result[0] != "PASS":
                break
        if result[0] != "UNSUPPORTED" or "known at import" not in result[1]:
            return result
    return "UNSUPPORTED", why


def main():
    args = sys.argv[1:]
    update = "--update" in args
    only = ""
    if "--only" in args:
        only = args[args.index("--only") + 1]
    rlxc, rlx_run, d = [a for a in args if not a.startswith("--")][:3]
    os.makedirs(d, exist_ok=True)
    cases = [c for c in node_cases.collect_testcases("") if only in c.name]
    results = run_all({c.name: c for c in cases},
                      lambda c: run_case(c, rlxc, rlx_run, d))
    return summarize(results, PASSING, "ONNX backend node tests", update)


if __name__ == "__main__":
    sys.exit(main())
