#!/usr/bin/env python3
"""The files around the ONNX import: external data, rlx-import-onnx's
outputs, paths that would overwrite an input, and bad input files (each a
clear error naming the file or the node, a non-zero exit, no crash).

Usage: onnx_files_test.py RLXC RLX_RUN RLX_IMPORT_ONNX SCRATCH_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_common import close, compile_and_run, read_safetensors, require, run  # noqa: E402

np = require("numpy")
onnx = require("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

rng = np.random.default_rng(1)
W = rng.standard_normal((4, 3)).astype(np.float32)
B = rng.standard_normal(3).astype(np.float32)


def linear_model(nodes=None, inits=None, opset=17, domain_ops=()):
    nodes = nodes or [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
                      helper.make_node("Add", ["h", "b"], ["y"], name="bias")]
    inits = inits if inits is not None else [
        numpy_helper.from_array(W, "w"), numpy_helper.from_array(B, "b")]
    graph = helper.make_graph(
        nodes, "linear", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])], inits)
    opsets = [helper.make_opsetid("", opset)] + \
        [helper.make_opsetid(d, 1) for d in domain_ops]
    return helper.make_model(graph, opset_imports=opsets)


failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


def expect_error(name, argv, *needles):
    p = run(argv, expect_ok=False)
    text = p.stderr + p.stdout
    ok = p.returncode > 0 and all(n in text for n in needles) and \
        "Stack dump" not in text
    check(name, ok, f"exit {p.returncode}, wanted {needles} in:\n{text}")


def main():
    rlxc, rlx_run, importer, d = sys.argv[1:5]
    os.makedirs(d, exist_ok=True)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    expected = x @ W + B

    # External data: the weights in a file beside the model.
    ext = os.path.join(d, "external.onnx")
    onnx.save(linear_model(), ext, save_as_external_data=True,
              all_tensors_to_one_file=True, location="external.weights",
              size_threshold=0)
    assert onnx.load(ext, load_external_data=False).graph.initializer[0].data_location == \
        TensorProto.EXTERNAL
    (got,) = compile_and_run(rlxc, rlx_run, ext, [{"x": x}])
    msg = close(expected, got["y"])
    check("external data: rlxc model.onnx + rlx-run", not msg, msg)

    # rlx-import-onnx: MLIR with named args and params, and the weights.
    mlir = os.path.join(d, "imported.mlir")
    weights = os.path.join(d, "imported.weights.safetensors")
    run([importer, ext, "-o", mlir, "--weights-out", weights])
    text = open(mlir).read()
    check("rlx-import-onnx: names", 'rlx.name = "x"' in text and
          'rlx.name = "y"' in text and 'rlx.param "w"' in text and
          "tensor<?x4xf32>" in text, text)
    saved = read_safetensors(weights)
    check("rlx-import-onnx: weights", set(saved) == {"w", "b"} and
          np.array_equal(saved["w"], W) and np.array_equal(saved["b"], B),
          str(saved))
    # The imported MLIR compiles with rlxc and runs with those weights.
    run([rlxc, mlir, "-o", os.path.join(d, "imported.so")])
    np.save(os.path.join(d, "x.npy"), x)
    run([rlx_run, os.path.join(d, "imported.so"), "--fn", "main", "--weights", weights,
         "--input", "x=" + os.path.join(d, "x.npy"), "--outputs",
         os.path.join(d, "imported.out.safetensors")])
    msg = close(expected, read_safetensors(os.path.join(d, "imported.out.safetensors"))["y"])
    check("rlx-import-onnx output compiles and runs", not msg, msg)

    # Never overwrite the input.
    plain = os.path.join(d, "plain.onnx")
    onnx.save(linear_model(), plain)
    before = open(plain, "rb").read()
    expect_error("rlxc -o equal to the input", [rlxc, plain, "-o", plain],
                 "would overwrite the input")
    expect_error("rlxc --weights-out equal to the input",
                 [rlxc, plain, "-o", os.path.join(d, "p.so"), "--weights-out", plain],
                 "would overwrite the input")
    expect_error("rlx-import-onnx -o equal to the input",
                 [importer, plain, "-o", plain], "would overwrite the input")
    check("the input is unchanged", open(plain, "rb").read() == before)

    # Bad files.
    truncated = os.path.join(d, "truncated.onnx")
    with open(truncated, "wb") as f:
        f.write(before[:len(before) // 2])
    expect_error("truncated model", [rlxc, truncated, "-o", os.path.join(d, "t.so")],
                 "truncated.onnx", "truncated")
    text_file = os.path.join(d, "notonnx.onnx")
    with open(text_file, "w") as f:
        f.write("module {\n  func.func @main() { return }\n}\n")
    expect_error("a text file named .onnx", [importer, text_file],
                 "notonnx.onnx", "is not an ONNX model")
    garbage = os.path.join(d, "garbage.onnx")
    with open(garbage, "wb") as f:
        f.write(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())
    expect_error("random bytes", [importer, garbage], "garbage.onnx")

    def bad(name, model, *needles):
        path = os.path.join(d, name.replace(" ", "_") + ".onnx")
        onnx.save(model, path)
        expect_error(name, [rlxc, path, "-o", path[:-5] + ".so"], *needles)
        expect_error(name + " (rlx-import-onnx)", [importer, path], *needles)

    bad("unknown op", linear_model(nodes=[
        helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
        helper.make_node("Det", ["h"], ["y"], name="det")]),
        "node 1 'det' (Det)", "op 'Det'", "not supported")
    bad("missing initializer", linear_model(inits=[numpy_helper.from_array(W, "w")]),
        "bias", "'b'")
    wrong_size = numpy_helper.from_array(W, "w")
    wrong_size.raw_data = wrong_size.raw_data[:20]
    bad("initializer size mismatch",
        linear_model(inits=[wrong_size, numpy_helper.from_array(B, "b")]),
        "initializer 'w'", "20 bytes", "[4, 3]")
    bad("opset too new", linear_model(opset=99), "opset 99")
    custom = linear_model(nodes=[
        helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
        helper.make_node("Fancy", ["h"], ["y"], name="fancy", domain="com.example")],
        domain_ops=["com.example"])
    bad("op from an unknown domain", custom, "fancy", "com.example")
    # uint64 is computed in i64: ops whose result depends on the sign are
    # refused (values of 2^63 and more), naming the node and the tensor.
    u64 = helper.make_model(helper.make_graph(
        [helper.make_node("Div", ["x", "x"], ["y"], name="halves")], "u64",
        [helper.make_tensor_value_info("x", TensorProto.UINT64, [3])],
        [helper.make_tensor_value_info("y", TensorProto.UINT64, [3])]),
        opset_imports=[helper.make_opsetid("", 17)])
    bad("uint64 division", u64, "node 0 'halves' (Div)",
        "'x', a UINT64 tensor", "2^63")
    # Slicing backwards needs the dim's size at import.
    back = helper.make_model(helper.make_graph(
        [helper.make_node("Slice", ["x", "s", "e", "a", "st"], ["y"], name="flip")],
        "back", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
        [numpy_helper.from_array(np.array([v], np.int64), k)
         for k, v in (("s", -1), ("e", -2 ** 63), ("a", 0), ("st", -1))]),
        opset_imports=[helper.make_opsetid("", 17)])
    bad("negative step on a dynamic dim", back, "node 0 'flip' (Slice)",
        "negative step on dynamic dim 0")
    # GridSample gathers rows of a static N * H * W.
    sampler = helper.make_model(helper.make_graph(
        [helper.make_node("GridSample", ["x", "g"], ["y"], name="warp")], "gs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 4, 4]),
         helper.make_tensor_value_info("g", TensorProto.FLOAT, ["N", 2, 2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1, 2, 2])]),
        opset_imports=[helper.make_opsetid("", 16)])
    bad("GridSample with a dynamic batch", sampler, "node 0 'warp' (GridSample)",
        "must be static")
    # The quantized ops read int8 and uint8 only (uint16 is held as i32).
    u16 = helper.make_model(helper.make_graph(
        [helper.make_node("DequantizeLinear", ["x", "s"], ["y"], name="dq")],
        "u16", [helper.make_tensor_value_info("x", TensorProto.UINT16, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        [numpy_helper.from_array(np.array(0.1, np.float32), "s")]),
        opset_imports=[helper.make_opsetid("", 17)])
    bad("uint16 into a quantized op", u16, "node 0 'dq' (DequantizeLinear)",
        "'x', a UINT16 tensor")
    bad("integer matmul of floats", linear_model(
        nodes=[helper.make_node("MatMulInteger", ["x", "w"], ["y"], name="mmi")]),
        "node 0 'mmi' (MatMulInteger)", "A (input 0) has element type 'f32'",
        "int8 and uint8")
    bad("per-axis scale of the wrong length", linear_model(
        nodes=[helper.make_node("QuantizeLinear", ["x", "s"], ["y"], name="quant", axis=1)],
        inits=[numpy_helper.from_array(np.ones(5, np.float32), "s")]),
        "node 0 'quant' (QuantizeLinear)", "5 elements for the 4")
    conv_w = numpy_helper.from_array(rng.standard_normal((2, 1, 3, 3)).astype(np.float32), "k")
    conv = helper.make_graph(
        [helper.make_node("Conv", ["x", "k"], ["y"], name="c", auto_pad="BOGUS")], "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, None, None])],
        [conv_w])
    bad("bad attribute value",
        helper.make_model(conv, opset_imports=[helper.make_opsetid("", 17)]),
        "node 0 'c' (Conv)", "auto_pad", "BOGUS")
    # Control flow the importer refuses: each error names the node.
    def ctrl_model(nodes, inputs, outputs):
        return helper.make_model(
            helper.make_graph(nodes, "ctrl", inputs, outputs),
            opset_imports=[helper.make_opsetid("", 17)])

    def vi(name, elem=TensorProto.FLOAT, shape=None):
        return helper.make_tensor_value_info(name, elem, shape)

    branches = dict(
        then_branch=helper.make_graph(
            [helper.make_node("Identity", ["x"], ["t"])], "t", [], [vi("t")]),
        else_branch=helper.make_graph(
            [helper.make_node("Concat", ["x", "x"], ["e"], axis=0)], "e", [],
            [vi("e")]))
    bad("If branches of different types", ctrl_model(
        [helper.make_node("If", ["cond"], ["z"], name="branch", **branches)],
        [vi("x", shape=[2]), vi("cond", TensorProto.BOOL, [])], [vi("z", shape=[None])]),
        "node 0 'branch' (If)", "then_branch", "else_branch")
    # A `while` loop (the condition computed in the body) with a scan output:
    # its length is unknown until the loop ends.
    body = helper.make_graph(
        [helper.make_node("Identity", ["s"], ["s2"]),
         helper.make_node("Identity", ["s"], ["y"])],
        "body", [vi("i", TensorProto.INT64, []), vi("cin", TensorProto.BOOL, []),
                 vi("s")], [vi("cin", TensorProto.BOOL, []), vi("s2"), vi("y")])
    bad("Loop with scan outputs and a computed condition", ctrl_model(
        [helper.make_node("Loop", ["", "cond", "x"], ["z", "ys"], name="loop",
                          body=body)],
        [vi("x", shape=[2]), vi("cond", TensorProto.BOOL, [])],
        [vi("z", shape=[2]), vi("ys", shape=[None, 2])]),
        "node 0 'loop' (Loop)", "scan outputs")
    body = helper.make_graph(
        [helper.make_node("NonZero", ["s"], ["nz"], name="inner"),
         helper.make_node("Identity", ["s"], ["s2"])],
        "body", [vi("i", TensorProto.INT64, []), vi("cin", TensorProto.BOOL, []),
                 vi("s")], [vi("cin", TensorProto.BOOL, []), vi("s2")])
    bad("an unsupported op in a Loop body", ctrl_model(
        [helper.make_node("Loop", ["m", "", "x"], ["z"], name="loop", body=body)],
        [vi("x", shape=[2]), vi("m", TensorProto.INT64, [])], [vi("z", shape=[None])]),
        "node 0 'loop' (Loop), body: node 0 'inner' (NonZero)", "not supported")
    body = helper.make_graph(
        [helper.make_node("Concat", ["s", "s"], ["s2"], axis=0)],
        "body", [vi("i", TensorProto.INT64, []), vi("cin", TensorProto.BOOL, []),
                 vi("s")], [vi("cin", TensorProto.BOOL, []), vi("s2")])
    bad("a Loop body changing a carried value's shape", ctrl_model(
        [helper.make_node("Loop", ["m", "", "x"], ["z"], name="grow", body=body)],
        [vi("x", shape=[2]), vi("m", TensorProto.INT64, [])], [vi("z", shape=[None])]),
        "node 0 'grow' (Loop)", "body", "must keep its type")

    # A run-time shape the importer cannot size: twice the dynamic batch.
    doubled = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Mul", ["s", "two"], ["s2"]),
         helper.make_node("ConstantOfShape", ["s2"], ["y"], name="fill")],
        "doubled", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
        [numpy_helper.from_array(np.array([2], np.int64), "two")])
    bad("ConstantOfShape of arithmetic on a dynamic dim",
        helper.make_model(doubled, opset_imports=[helper.make_opsetid("", 17)]),
        "node 2 'fill' (ConstantOfShape)", "arithmetic")

    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
