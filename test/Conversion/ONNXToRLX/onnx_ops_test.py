#!/usr/bin/env python3
"""Every op the ONNX importer maps, one single-node (or small) model per
case built with onnx.helper, compiled by `rlxc model.onnx`, run by rlx-run
and compared with a NumPy reference written here (never rlx's code path).
Cases marked dynamic have a `dim_param` batch and run at two batch sizes.

Usage: onnx_ops_test.py RLXC RLX_RUN SCRATCH_DIR [CASE_SUBSTRING]"""
import inspect
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_common import SKIP, close, compile_and_run, require  # noqa: E402
from nd_window_refs import conv_nd, conv_transpose_nd, pool_nd  # noqa: E402
from recurrent_refs import recurrent  # noqa: E402

np = require("numpy")
onnx = require("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

rng = np.random.default_rng(0)
ONNX_TYPES = {np.dtype(np.float32): TensorProto.FLOAT,
              np.dtype(np.float64): TensorProto.DOUBLE,
              np.dtype(np.int64): TensorProto.INT64,
              np.dtype(np.int32): TensorProto.INT32,
              np.dtype(np.int8): TensorProto.INT8,
              np.dtype(np.int16): TensorProto.INT16,
              np.dtype(np.uint8): TensorProto.UINT8,
              np.dtype(np.uint16): TensorProto.UINT16,
              np.dtype(np.uint32): TensorProto.UINT32,
              np.dtype(np.uint64): TensorProto.UINT64,
              np.dtype(np.bool_): TensorProto.BOOL}


def f32(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


CASES = []


def case(name, op, inputs, ref, attrs=None, inits=None, dynamic=False,
         outputs=1, opset=17, nodes=None, rtol=1e-4, atol=1e-5, f64=False,
         rlxc_args=()):
    """inputs: name -> function(batch) -> array (graph inputs); inits:
    name -> array (initializers); ref(**all arrays) -> array or tuple
    (f64 results stand for f32 outputs unless f64); rlxc_args: more flags
    for rlxc."""
    CASES.append(dict(name=name, op=op, inputs=inputs, ref=ref,
                      attrs=attrs or {}, inits=inits or {}, dynamic=dynamic,
                      outputs=outputs, opset=opset, nodes=nodes, rtol=rtol,
                      atol=atol, f64=f64, rlxc_args=rlxc_args))


def fixed(a):
    return lambda batch: a


def batched(*shape, fn=f32):
    return lambda batch: fn(batch, *shape)


# ---------------------------------------------------------------- references

erf = np.vectorize(math.erf, otypes=[np.float64])


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def conv_ref(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1),
             group=1):
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64),
                ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, f, oh, ow))
    fg = f // group
    for o in range(f):
        g = o // fg
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * strides[0]:i * strides[0] + dil[0] * (kh - 1) + 1:dil[0],
                           j * strides[1]:j * strides[1] + dil[1] * (kw - 1) + 1:dil[1]]
                y[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def conv_transpose_ref(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0),
                      dil=(1, 1), group=1, out_pad=(0, 0)):
    n, c, h, wd = x.shape
    _, fg, kh, kw = w.shape
    cg = c // group
    oh = strides[0] * (h - 1) + out_pad[0] + dil[0] * (kh - 1) + 1 - pads[0] - pads[2]
    ow = strides[1] * (wd - 1) + out_pad[1] + dil[1] * (kw - 1) + 1 - pads[1] - pads[3]
    full = np.zeros((n, fg * group, oh + pads[0] + pads[2] + kh * dil[0],
                     ow + pads[1] + pads[3] + kw * dil[1]))
    for ci in range(c):
        g = ci // cg
        for f in range(fg):
            for i in range(h):
                for j in range(wd):
                    for a in range(kh):
                        for bb in range(kw):
                            full[:, g * fg + f, i * strides[0] + a * dil[0],
                                 j * strides[1] + bb * dil[1]] += \
                                x[:, ci, i, j] * w[ci, f, a, bb]
    y = full[:, :, pads[0]:pads[0] + oh, pads[1]:pads[1] + ow]
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def pool_ref(x, k, strides, pads, kind, include_pad=False, ceil=False):
    n, c, h, w = x.shape
    fill = -np.inf if kind == "max" else 0.0
    span_h = h + pads[0] + pads[2] - k[0]
    span_w = w + pads[1] + pads[3] - k[1]
    rnd = (lambda v, s: -(-v // s)) if ceil else (lambda v, s: v // s)
    oh, ow = rnd(span_h, strides[0]) + 1, rnd(span_w, strides[1]) + 1
    extra_h = max((oh - 1) * strides[0] + k[0] - (h + pads[0] + pads[2]), 0)
    extra_w = max((ow - 1) * strides[1] + k[1] - (w + pads[1] + pads[3]), 0)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2] + extra_h),
                                       (pads[1], pads[3] + extra_w)),
                constant_values=fill)
    valid = np.pad(np.ones((h, w)), ((pads[0], pads[2] + extra_h),
                                     (pads[1], pads[3] + extra_w)))
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            sl = (slice(i * strides[0], i * strides[0] + k[0]),
                  slice(j * strides[1], j * strides[1] + k[1]))
            win = xp[:, :, sl[0], sl[1]]
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                count = k[0] * k[1] if include_pad else valid[sl].sum()
                y[:, :, i, j] = win.sum(axis=(2, 3)) / count
    return y.astype(np.float32)


# ---------------------------------------------------------------- the cases

# Elementwise, with a dynamic batch and broadcasting.
for op, fn in [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply),
               ("Div", np.divide)]:
    case(op, op, {"a": batched(3, 4), "b": fixed(f32(4, lo=0.5, hi=2))},
         lambda a, b, fn=fn: fn(a, b), dynamic=True)
case("Pow", "Pow", {"a": fixed(f32(2, 3, lo=0.5, hi=2)),
                    "b": fixed(f32(2, 3, lo=-1, hi=2))}, lambda a, b: a ** b)
case("PowSquare", "Pow", {"a": batched(5)},
     lambda a, e: a ** 2, inits={"e": np.array(2.0, np.float32)},
     dynamic=True)
for op, fn, lo in [("Sqrt", np.sqrt, 0.1), ("Exp", np.exp, -2),
                   ("Log", np.log, 0.1), ("Tanh", np.tanh, -2),
                   ("Sigmoid", lambda x: 1 / (1 + np.exp(-x)), -2),
                   ("Relu", lambda x: np.maximum(x, 0), -2),
                   ("Erf", erf, -2), ("Neg", np.negative, -2),
                   ("Abs", np.abs, -2), ("Reciprocal", lambda x: 1 / x, 0.5),
                   ("Identity", lambda x: x, -2)]:
    case(op, op, {"x": (lambda lo: lambda batch: f32(batch, 6, lo=lo))(lo)},
         lambda x, fn=fn: fn(x.astype(np.float64)).astype(np.float32),
         dynamic=True)
case("LeakyRelu", "LeakyRelu", {"x": batched(7)},
     lambda x: np.where(x > 0, x, 0.1 * x), attrs={"alpha": 0.1},
     dynamic=True)
case("HardSigmoid", "HardSigmoid", {"x": batched(7, fn=lambda *s: f32(*s, lo=-5, hi=5))},
     lambda x: np.clip(0.2 * x + 0.5, 0, 1))
case("HardSwish", "HardSwish", {"x": batched(7, fn=lambda *s: f32(*s, lo=-5, hi=5))},
     lambda x: x * np.clip(x / 6 + 0.5, 0, 1))
case("Clip", "Clip", {"x": batched(8)}, lambda x, lo, hi: np.clip(x, lo, hi),
     inits={"lo": np.array(-0.5, np.float32), "hi": np.array(0.7, np.float32)},
     dynamic=True)
case("Max", "Max", {"a": fixed(f32(3, 4)), "b": fixed(f32(4))}, lambda a, b: np.maximum(a, b))
case("Min", "Min", {"a": fixed(f32(3, 4)), "b": fixed(f32(4))}, lambda a, b: np.minimum(a, b))
case("Sum", "Sum", {"a": fixed(f32(3, 4)), "b": fixed(f32(3, 4)),
                    "c": fixed(f32(4))}, lambda a, b, c: a + b + c)
case("Mean", "Mean", {"a": fixed(f32(3, 4)), "b": fixed(f32(3, 4))},
     lambda a, b: (a + b) / 2)
case("Where", "Where", {"c": fixed(rng.uniform(size=(3, 4)) > 0.5),
                        "a": fixed(f32(3, 4)), "b": fixed(f32(4))},
     lambda c, a, b: np.where(c, a, b))
case("Less", "Less", {"a": fixed(f32(3, 4)), "b": fixed(f32(4))}, lambda a, b: np.less(a, b))
case("Greater", "Greater", {"a": fixed(f32(3, 4)), "b": fixed(f32(4))},
     lambda a, b: np.greater(a, b))
case("Equal", "Equal", {"a": fixed(rng.integers(0, 3, (3, 4))),
                        "b": fixed(rng.integers(0, 3, (4,)))}, lambda a, b: np.equal(a, b))
case("Not", "Not", {"a": fixed(rng.uniform(size=(5,)) > 0.5)}, lambda a: np.logical_not(a))
case("And", "And", {"a": fixed(rng.uniform(size=(5,)) > 0.5),
                    "b": fixed(rng.uniform(size=(5,)) > 0.5)}, lambda a, b: np.logical_and(a, b))
case("Or", "Or", {"a": fixed(rng.uniform(size=(5,)) > 0.5),
                  "b": fixed(rng.uniform(size=(5,)) > 0.5)}, lambda a, b: np.logical_or(a, b))
case("Cast", "Cast", {"x": fixed(f32(3, 4, lo=-5, hi=5))},
     lambda x: x.astype(np.float64), attrs={"to": TensorProto.DOUBLE})
case("CastToInt", "Cast", {"x": fixed(f32(3, 4, lo=-5, hi=5))},
     lambda x: np.trunc(x).astype(np.int64), attrs={"to": TensorProto.INT64})
case("Dropout", "Dropout", {"x": batched(4)}, lambda x: x, dynamic=True)
# The mask output of inference: all true, NaNs of x included.
case("DropoutMask", "Dropout",
     {"x": batched(4, fn=lambda *s: np.where(f32(*s) > 1.5, np.nan, f32(*s))
                   .astype(np.float32))},
     lambda x: (x, np.ones(x.shape, bool)), dynamic=True)

# Contractions.
W = f32(6, 5)
case("MatMul", "MatMul", {"a": batched(4, 6)}, lambda a, w: a @ w,
     inits={"w": W}, dynamic=True)
case("MatMulBatchBroadcast", "MatMul",
     {"a": fixed(f32(2, 3, 4, 6)), "b": fixed(f32(3, 6, 5))}, lambda a, b: np.matmul(a, b))
case("MatMulVector", "MatMul", {"a": fixed(f32(6)), "b": fixed(f32(6, 5))},
     lambda a, b: np.matmul(a, b))
case("Gemm", "Gemm", {"a": batched(6)}, lambda a, w, c: a @ w + c,
     inits={"w": W, "c": f32(5)}, dynamic=True)
case("GemmTransposed", "Gemm", {"a": fixed(f32(6, 3)), "b": fixed(f32(5, 6)),
                                "c": fixed(f32(3, 5))},
     lambda a, b, c: 0.5 * (a.T @ b.T) + 2.0 * c,
     attrs={"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0})

# Shapes.
case("Reshape", "Reshape", {"x": batched(3, 4)},
     lambda x, s: x.reshape(x.shape[0], -1),
     inits={"s": np.array([0, -1], np.int64)}, dynamic=True)
case("ReshapeStatic", "Reshape", {"x": fixed(f32(2, 3, 4))},
     lambda x, s: x.reshape(4, 3, 2), inits={"s": np.array([4, -1, 2], np.int64)})
case("Flatten", "Flatten", {"x": batched(2, 3, 2)},
     lambda x: x.reshape(x.shape[0], -1), dynamic=True)
case("FlattenAxis2", "Flatten", {"x": fixed(f32(2, 3, 4, 5))},
     lambda x: x.reshape(6, 20), attrs={"axis": 2})
case("Transpose", "Transpose", {"x": batched(3, 4)},
     lambda x: x.transpose(2, 0, 1), attrs={"perm": [2, 0, 1]}, dynamic=True)
case("TransposeDefault", "Transpose", {"x": fixed(f32(2, 3, 4))},
     lambda x: x.transpose())
case("Concat", "Concat", {"a": batched(2), "b": batched(3)},
     lambda a, b: np.concatenate([a, b], 1), attrs={"axis": -1}, dynamic=True)
case("Squeeze", "Squeeze", {"x": fixed(f32(3, 1, 4, 1))},
     lambda x, axes: x.reshape(3, 4), inits={"axes": np.array([1, -1], np.int64)})
case("SqueezeAll", "Squeeze", {"x": fixed(f32(1, 3, 1))},
     lambda x: x.reshape(3))
case("SqueezeOpset11", "Squeeze", {"x": fixed(f32(3, 1, 4))},
     lambda x: x.reshape(3, 4), attrs={"axes": [1]}, opset=11)
case("Unsqueeze", "Unsqueeze", {"x": batched(4)},
     lambda x, axes: x[:, None, :, None], inits={"axes": np.array([1, 3], np.int64)},
     dynamic=True)
case("Slice", "Slice", {"x": fixed(f32(5, 8))},
     lambda x, s, e, a, st: x[1:4, -6:7:2],
     inits={"s": np.array([1, -6], np.int64), "e": np.array([4, 7], np.int64),
            "a": np.array([0, 1], np.int64), "st": np.array([1, 2], np.int64)})
# Backward steps (torch.flip and x[::-2] export as these), with a forward
# axis beside them on a dynamic batch; ends of INT_MIN run to the start.
case("SliceNegativeSteps", "Slice", {"x": batched(5, 8)},
     lambda x, s, e, a, st: x[:, ::-1, 6:0:-2],
     inits={"s": np.array([-1, 6], np.int64),
            "e": np.array([-2 ** 63, 0], np.int64),
            "a": np.array([1, 2], np.int64), "st": np.array([-1, -2], np.int64)},
     dynamic=True)
case("SliceNegativeStepEmpty", "Slice", {"x": fixed(f32(3, 4))},
     lambda x, s, e, a, st: x[:, 1:3:-1],
     inits={"s": np.array([1], np.int64), "e": np.array([3], np.int64),
            "a": np.array([1], np.int64), "st": np.array([-1], np.int64)})
case("SliceDynamic", "Slice", {"x": batched(8)},
     lambda x, s, e, a: x[:, 2:-1],
     inits={"s": np.array([2], np.int64), "e": np.array([-1], np.int64),
            "a": np.array([1], np.int64)}, dynamic=True)
case("SliceDynamicRows", "Slice", {"x": batched(3)},
     lambda x, s, e, a: x[1:],
     inits={"s": np.array([1], np.int64),
            "e": np.array([2 ** 63 - 1], np.int64),
            "a": np.array([0], np.int64)}, dynamic=True)
case("Split", "Split", {"x": fixed(f32(2, 7))},
     lambda x, sp: (x[:, :3], x[:, 3:]), attrs={"axis": 1},
     inits={"sp": np.array([3, 4], np.int64)}, outputs=2)
case("Pad", "Pad", {"x": fixed(f32(2, 3, 4))},
     lambda x, p, v: np.pad(x, ((0, 1), (2, 0), (1, 3)), constant_values=0.5),
     inits={"p": np.array([0, 2, 1, 1, 0, 3], np.int64),
            "v": np.array(0.5, np.float32)})
case("PadEdge", "Pad", {"x": fixed(f32(2, 3, 4))},
     lambda x, p: np.pad(x, ((0, 1), (2, 0), (1, 3)), mode="edge"),
     attrs={"mode": "edge"}, inits={"p": np.array([0, 2, 1, 1, 0, 3], np.int64)})
# Pads beyond the size reflect again (NumPy's periodic reflection).
case("PadReflect", "Pad", {"x": batched(3, 4)},
     lambda x, p: np.pad(x, ((0, 0), (2, 1), (5, 3)), mode="reflect"),
     attrs={"mode": "reflect"},
     inits={"p": np.array([0, 2, 5, 0, 1, 3], np.int64)}, dynamic=True)
EMB = f32(10, 4)
case("GatherEmbedding", "Gather", {"ids": batched(3, fn=lambda *s: rng.integers(0, 10, s))},
     lambda table, ids: table[ids], inits={"table": EMB}, dynamic=True,
     nodes=[("Gather", ["table", "ids"], {})])
case("GatherConstIndices", "Gather", {"x": fixed(f32(3, 5))},
     lambda x, i: np.take(x, np.array([4, -1, 0]), axis=1), attrs={"axis": 1},
     inits={"i": np.array([4, -1, 0], np.int64)})
# TopK against a stable sort (ties in index order): largest and smallest,
# along the last and a middle axis, floats with ties and infinities, int32
# with the type's extremes, a dynamic batch.
def topk_ref(x, k, axis, largest):
    key = -x.astype(np.float64) if largest else x.astype(np.float64)
    order = np.argsort(key, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


TIES = np.array([[1, 3, 3, -np.inf, 2, 3, np.inf, -np.inf],
                 [0, 0, -1, 0, 5, -np.inf, 0, 5]], np.float32)
case("TopKLargestTies", "TopK", {"x": fixed(TIES)},
     lambda x, k: topk_ref(x, 5, 1, True), inits={"k": np.array([5], np.int64)})
case("TopKSmallestTies", "TopK", {"x": fixed(TIES)},
     lambda x, k: topk_ref(x, 7, 1, False), attrs={"largest": 0},
     inits={"k": np.array([7], np.int64)})
case("TopKMiddleAxis", "TopK", {"x": batched(6, 3)},
     lambda x, k: topk_ref(x, 3, 1, True), attrs={"axis": 1},
     inits={"k": np.array([3], np.int64)}, dynamic=True)
INTS = np.array([[5, -2147483648, 2147483647, 0, -2147483648, 7],
                 [1, 1, 1, -1, 2147483647, 0]], np.int32)
for largest in [1, 0]:
    case(f"TopKInt{'Largest' if largest else 'Smallest'}", "TopK",
         {"x": fixed(INTS)},
         (lambda largest: lambda x, k: topk_ref(x, 4, -1, bool(largest)))(largest),
         attrs={"largest": largest}, inits={"k": np.array([4], np.int64)})
# GatherND against plain loops: tuples shorter than the data's rank,
# negative components, batch_dims 1, a dynamic number of tuples.
def gather_nd_ref(x, idx, batch_dims=0):
    idx = np.asarray(idx)
    outer = idx.shape[:-1]
    out = []
    for pos in np.ndindex(*outer):
        sub = x[pos[:batch_dims]] if batch_dims else x
        out.append(sub[tuple(int(i) for i in idx[pos])])
    rest = x.shape[batch_dims + idx.shape[-1]:]
    return np.array(out, x.dtype).reshape(outer + rest)


case("GatherNDNegative", "GatherND", {"x": fixed(f32(3, 4, 5))},
     lambda x, i: gather_nd_ref(x, i),
     inits={"i": np.array([[[-1, 2]], [[0, -4]]], np.int64)})
case("GatherNDBatchDims", "GatherND", {"x": fixed(f32(2, 3, 4))},
     lambda x, i: gather_nd_ref(x, i, 1), attrs={"batch_dims": 1},
     inits={"i": np.array([[[2, -1], [0, 1]], [[-3, 3], [1, 0]]], np.int32)})
case("GatherNDDynamicTuples", "GatherND",
     {"i": batched(2, fn=lambda *s: rng.integers(-3, 3, s))},
     lambda x, i: gather_nd_ref(x, i), inits={"x": f32(3, 3, 2)},
     nodes=[("GatherND", ["x", "i"], {})], dynamic=True)
# ScatterND and ScatterElements against plain loops: writes (the last of
# duplicate indices wins, as ONNX Runtime's loop), add and mul with
# duplicates, negative indices, slices of rows, a dynamic data batch is
# not possible (the indexed dims are static), infinities in updates.
def scatter_nd_ref(x, idx, upd, reduction="none"):
    out = x.copy()
    for pos in np.ndindex(*idx.shape[:-1]):
        at = tuple(int(i) for i in idx[pos])
        if reduction == "add":
            out[at] += upd[pos]
        elif reduction == "mul":
            out[at] *= upd[pos]
        else:
            out[at] = upd[pos]
    return out


def scatter_elements_ref(x, idx, upd, axis, reduction="none"):
    out = x.copy()
    for pos in np.ndindex(*idx.shape):
        at = list(pos)
        at[axis] = int(idx[pos])
        at = tuple(at)
        if reduction == "add":
            out[at] += upd[pos]
        elif reduction == "mul":
            out[at] *= upd[pos]
        else:
            out[at] = upd[pos]
    return out


SND_I = np.array([[1, -1], [0, 2], [1, -1]], np.int64)
SND_U = np.array([[1.5, np.inf, -2.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
                 np.float32)
for red in ["none", "add", "mul"]:
    case(f"ScatterND{red.title()}", "ScatterND", {"x": fixed(f32(2, 3, 3))},
         (lambda red: lambda x, i, u: scatter_nd_ref(x, i, u, red))(red),
         attrs={"reduction": red} if red != "none" else {},
         inits={"i": SND_I, "u": SND_U})
case("ScatterNDRows", "ScatterND", {"x": fixed(f32(5, 2))},
     lambda x, i, u: scatter_nd_ref(x, i, u),
     inits={"i": np.array([[4], [-5]], np.int32), "u": f32(2, 2)})
SE_I = np.array([[2, 0], [-1, 1], [0, 0]], np.int64)
for red in ["none", "add", "mul"]:
    case(f"ScatterElements{red.title()}", "ScatterElements",
         {"x": fixed(f32(3, 4)), "u": fixed(f32(3, 2))},
         (lambda red: lambda x, i, u: scatter_elements_ref(x, i, u, 1, red))(red),
         attrs={"axis": 1, **({"reduction": red} if red != "none" else {})},
         inits={"i": SE_I},
         nodes=[("ScatterElements", ["x", "i", "u"],
                 {"axis": 1, **({"reduction": red} if red != "none" else {})})])
case("ScatterElementsAxis0Partial", "ScatterElements",
     {"x": fixed(f32(4, 3)), "u": fixed(f32(2, 2))},
     lambda x, i, u: scatter_elements_ref(x, i, u, 0),
     inits={"i": np.array([[3, 0], [-4, 2]], np.int64)},
     nodes=[("ScatterElements", ["x", "i", "u"], {"axis": 0})])
# Negative indices along a dynamic dim count from its end at run time (the
# last time step of a sequence: PyTorch's y[:, -1]), known or not.
case("GatherNegativeDynamicDim", "Gather", {"x": batched(3)},
     lambda x, i: np.take(x, np.array([-1, 0, -1]) % x.shape[0], axis=0),
     inits={"i": np.array([-1, 0, -1], np.int64)}, dynamic=True)
case("GatherRuntimeNegativeDynamicDim", "Gather",
     {"x": batched(3), "i": fixed(np.array([-1], np.int64))},
     lambda x, i: x[[-1]], dynamic=True)
case("Expand", "Expand", {"x": fixed(f32(3, 1))},
     lambda x, s: np.broadcast_to(x, (2, 3, 4)),
     inits={"s": np.array([2, 1, 4], np.int64)})
case("ShapeArithmetic", None, {"x": fixed(f32(2, 3, 4))},
     lambda x: x.reshape(2, 12),
     nodes=[("Shape", ["x"], {}, ["shape"]),
            ("Constant", [], {"value": numpy_helper.from_array(
                np.array(0, np.int64))}, ["zero"]),
            ("Gather", ["shape", "zero"], {"axis": 0}, ["n"]),
            ("Unsqueeze", ["n", "axes0"], {}, ["n1"]),
            ("Constant", [], {"value_ints": [-1]}, ["minus1"]),
            ("Concat", ["n1", "minus1"], {"axis": 0}, ["newshape"]),
            ("Reshape", ["x", "newshape"], {}, ["y"])],
     inits={"axes0": np.array([0], np.int64)})
case("ShapeArithmeticDynamic", None, {"x": batched(3, 4)},
     lambda x: x.reshape(x.shape[0], 12).transpose(),
     nodes=[("Shape", ["x"], {}, ["shape"]),
            ("Gather", ["shape", "zero"], {"axis": 0}, ["n"]),
            ("Unsqueeze", ["n", "axes0"], {}, ["n1"]),
            ("Slice", ["shape", "one", "three"], {}, ["rest"]),
            ("Concat", ["n1", "twelve"], {"axis": 0}, ["newshape"]),
            ("Reshape", ["x", "newshape"], {}, ["flat"]),
            ("Transpose", ["flat"], {}, ["y"])],
     inits={"zero": np.array(0, np.int64), "axes0": np.array([0], np.int64),
            "one": np.array([1], np.int64), "three": np.array([3], np.int64),
            "twelve": np.array([12], np.int64)},
     dynamic=True)
# Shapes computed at run time from a dynamic batch: ConstantOfShape and
# Expand to them (PyTorch's zeros_like, expand), and a dim read as data.
case("ConstantOfShapeDynamic", None, {"x": batched(3)},
     lambda x: np.full(x.shape, 2.5, np.float32),
     nodes=[("Shape", ["x"], {}, ["shape"]),
            ("ConstantOfShape", ["shape"], {"value": numpy_helper.from_array(
                np.array([2.5], np.float32))})],
     dynamic=True)
case("ConstantOfShapeDynamicInt", None, {"x": batched(3)},
     lambda x: np.zeros((x.shape[0], 2, 3), np.int64),
     nodes=[("Shape", ["x"], {}, ["shape"]),
            ("Gather", ["shape", "zero"], {"axis": 0}, ["n"]),
            ("Unsqueeze", ["n", "axes0"], {}, ["n1"]),
            ("Concat", ["n1", "two_three"], {"axis": 0}, ["s"]),
            ("ConstantOfShape", ["s"], {"value": numpy_helper.from_array(
                np.array([0], np.int64))})],
     inits={"zero": np.array(0, np.int64), "axes0": np.array([0], np.int64),
            "two_three": np.array([2, 3], np.int64)}, dynamic=True)
case("ExpandDynamic", None, {"x": batched(1, 3)},
     lambda x, b: np.broadcast_to(b, (x.shape[0], 4, 3)),
     nodes=[("Shape", ["x"], {}, ["shape"]),
            ("Gather", ["shape", "zero"], {"axis": 0}, ["n"]),
            ("Unsqueeze", ["n", "axes0"], {}, ["n1"]),
            ("Concat", ["n1", "four_one"], {"axis": 0}, ["s"]),
            ("Expand", ["b", "s"], {})],
     inits={"b": f32(3), "zero": np.array(0, np.int64),
            "axes0": np.array([0], np.int64),
            "four_one": np.array([4, 1], np.int64)}, dynamic=True)
case("ShapeAsData", None, {"x": batched(3)},
     lambda x: x / np.float32(x.shape[0]) + np.float32(3),
     nodes=[("Shape", ["x"], {}, ["shape"]),
            ("Gather", ["shape", "zero"], {"axis": 0}, ["n"]),
            ("Cast", ["n"], {"to": TensorProto.FLOAT}, ["nf"]),
            ("Div", ["x", "nf"], {}, ["q"]),
            ("Shape", ["x"], {}, ["shape2"]),
            ("Cast", ["shape2"], {"to": TensorProto.FLOAT}, ["sf"]),
            ("Gather", ["sf", "one"], {"axis": 0}, ["three"]),
            ("Add", ["q", "three"], {})],
     inits={"zero": np.array(0, np.int64), "one": np.array(1, np.int64)},
     dynamic=True)
case("ViewBatchMinusOne", None, {"x": batched(2, 3)},
     lambda x: x.reshape(x.shape[0], -1),
     nodes=[("Shape", ["x"], {}, ["shape"]),
            ("Gather", ["shape", "zero"], {"axis": 0}, ["n"]),
            ("Unsqueeze", ["n", "axes0"], {}, ["n1"]),
            ("Concat", ["n1", "minus1"], {"axis": 0}, ["newshape"]),
            ("Reshape", ["x", "newshape"], {}, ["y"])],
     inits={"zero": np.array(0, np.int64), "axes0": np.array([0], np.int64),
            "minus1": np.array([-1], np.int64)},
     dynamic=True)
case("ReshapeToAnotherInputsBatch", None, {"a": batched(4), "b": batched(2, 2)},
     lambda a, b: b.reshape(b.shape[0], -1) + a,
     nodes=[("Shape", ["a"], {}, ["shape"]),
            ("Gather", ["shape", "zero"], {"axis": 0}, ["n"]),
            ("Unsqueeze", ["n", "axes0"], {}, ["n1"]),
            ("Concat", ["n1", "minus1"], {"axis": 0}, ["newshape"]),
            ("Reshape", ["b", "newshape"], {}, ["flat"]),
            ("Add", ["flat", "a"], {}, ["y"])],
     inits={"zero": np.array(0, np.int64), "axes0": np.array([0], np.int64),
            "minus1": np.array([-1], np.int64)},
     dynamic=True)
case("ConstantOfShape", None, {"x": fixed(f32(2, 3))},
     lambda x: x + 1.5,
     nodes=[("Shape", ["x"], {}, ["s"]),
            ("ConstantOfShape", ["s"], {"value": numpy_helper.from_array(
                np.array([1.5], np.float32))}, ["c"]),
            ("Add", ["x", "c"], {}, ["y"])])

# Reductions and normalization.
case("Softmax", "Softmax", {"x": batched(3, 5)}, lambda x: softmax(x, -1),
     dynamic=True)
case("SoftmaxAxis1", "Softmax", {"x": fixed(f32(2, 3, 5))},
     lambda x: softmax(x, 1), attrs={"axis": 1})
case("LogSoftmax", "LogSoftmax", {"x": batched(5)},
     lambda x: np.log(softmax(x.astype(np.float64), -1)), dynamic=True)
case("ReduceMean", "ReduceMean", {"x": batched(3, 4)},
     lambda x: x.mean(axis=(1, 2), keepdims=True), attrs={"axes": [1, -1]},
     dynamic=True)
case("ReduceMax", "ReduceMax", {"x": fixed(f32(3, 4))},
     lambda x: x.max(axis=0), attrs={"axes": [0], "keepdims": 0})
case("ReduceMin", "ReduceMin", {"x": fixed(f32(3, 4))},
     lambda x: x.min(axis=1, keepdims=True), attrs={"axes": [1]})
case("ReduceSum", "ReduceSum", {"x": fixed(f32(3, 4, 2))},
     lambda x, axes: x.sum(axis=1), attrs={"keepdims": 0},
     inits={"axes": np.array([1], np.int64)})
case("ReduceSumAll", "ReduceSum", {"x": fixed(f32(3, 4))},
     lambda x: x.sum(keepdims=True))
case("ReduceL2", "ReduceL2", {"x": fixed(f32(3, 4))},
     lambda x: np.sqrt((x.astype(np.float64) ** 2).sum(axis=1)),
     attrs={"axes": [1], "keepdims": 0})
case("LayerNormalization", "LayerNormalization", {"x": batched(3, 8)},
     lambda x, s, b: ((x - x.mean(-1, keepdims=True)) /
                      np.sqrt(x.var(-1, keepdims=True) + 1e-5)) * s + b,
     inits={"s": f32(8), "b": f32(8)}, dynamic=True)
C = 3
case("BatchNormalization", "BatchNormalization", {"x": batched(C, 4, 5)},
     lambda x, s, b, m, v: ((x - m.reshape(1, C, 1, 1)) /
                            np.sqrt(v.reshape(1, C, 1, 1) + 1e-3)) *
     s.reshape(1, C, 1, 1) + b.reshape(1, C, 1, 1),
     attrs={"epsilon": 1e-3},
     inits={"s": f32(C), "b": f32(C), "m": f32(C), "v": f32(C, lo=0.5, hi=2)},
     dynamic=True)

# Convolution and pooling (NCHW).
case("Conv", "Conv", {"x": batched(3, 7, 6)},
     lambda x, w, b: conv_ref(x, w, b, pads=(1, 1, 1, 1)),
     attrs={"pads": [1, 1, 1, 1]}, inits={"w": f32(4, 3, 3, 3), "b": f32(4)},
     dynamic=True)
case("ConvStridedDilated", "Conv", {"x": fixed(f32(2, 3, 9, 8))},
     lambda x, w: conv_ref(x, w, strides=(2, 1), pads=(0, 1, 2, 1), dil=(2, 1)),
     attrs={"strides": [2, 1], "pads": [0, 1, 2, 1], "dilations": [2, 1]},
     inits={"w": f32(5, 3, 2, 3)})
case("ConvGrouped", "Conv", {"x": fixed(f32(1, 4, 6, 6))},
     lambda x, w: conv_ref(x, w, group=2), attrs={"group": 2},
     inits={"w": f32(6, 2, 3, 3)})
case("ConvDepthwise", "Conv", {"x": fixed(f32(2, 4, 6, 6))},
     lambda x, w, b: conv_ref(x, w, b, pads=(1, 1, 1, 1), group=4),
     attrs={"group": 4, "pads": [1, 1, 1, 1]},
     inits={"w": f32(4, 1, 3, 3), "b": f32(4)})
case("ConvSameUpper", "Conv", {"x": fixed(f32(1, 2, 7, 7))},
     lambda x, w: conv_ref(x, w, strides=(2, 2), pads=(1, 1, 1, 1)),
     attrs={"auto_pad": "SAME_UPPER", "strides": [2, 2]},
     inits={"w": f32(3, 2, 3, 3)})
# 1-D convolutions and pools run as 2-D ones of height 1; the references
# are the 2-D ones on the same lift.
def lifted(ref):
    def run(x, *rest, **kw):
        rest = [r[:, :, None, :] if isinstance(r, np.ndarray) and r.ndim == 3
                else r for r in rest]
        return ref(x[:, :, None, :], *rest, **kw)[:, :, 0, :]
    return run


case("Conv1D", "Conv", {"x": batched(3, 9)},
     lambda x, w, b: lifted(conv_ref)(x, w, b, strides=(1, 2), pads=(0, 2, 0, 1),
                                      dil=(1, 2)),
     attrs={"strides": [2], "pads": [2, 1], "dilations": [2]},
     inits={"w": f32(4, 3, 3), "b": f32(4)}, dynamic=True)
case("Conv1DGroupedSame", "Conv", {"x": fixed(f32(2, 4, 7))},
     lambda x, w: lifted(conv_ref)(x, w, pads=(0, 1, 0, 1), group=2),
     attrs={"group": 2, "auto_pad": "SAME_UPPER"}, inits={"w": f32(6, 2, 3)})
case("MaxPool1D", "MaxPool", {"x": batched(3, 10)},
     lambda x: lifted(pool_ref)(x, (1, 3), (1, 2), (0, 1, 0, 1), "max"),
     attrs={"kernel_shape": [3], "strides": [2], "pads": [1, 1]}, dynamic=True)
case("AveragePool1D", "AveragePool", {"x": fixed(f32(2, 3, 9))},
     lambda x: lifted(pool_ref)(x, (1, 4), (1, 3), (0, 1, 0, 0), "avg"),
     attrs={"kernel_shape": [4], "strides": [3], "pads": [1, 0]})
def dilated_max_ref(x, k, strides, pads, dil):
    """Max pooling with dilations by plain loops over NCHW (pads: top,
    left, bottom, right)."""
    n, c, h, w = x.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]),
                                       (pads[1], pads[3])),
                constant_values=-np.inf)
    oh = (xp.shape[2] - dil[0] * (k[0] - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dil[1] * (k[1] - 1) - 1) // strides[1] + 1
    y = np.full((n, c, oh, ow), -np.inf)
    for i in range(oh):
        for j in range(ow):
            for a in range(k[0]):
                for b in range(k[1]):
                    y[:, :, i, j] = np.maximum(
                        y[:, :, i, j], xp[:, :, i * strides[0] + a * dil[0],
                                          j * strides[1] + b * dil[1]])
    return y.astype(np.float32)


case("MaxPoolDilated", "MaxPool", {"x": batched(2, 9, 8)},
     lambda x: dilated_max_ref(x, (2, 3), (2, 1), (1, 0, 0, 2), (2, 2)),
     attrs={"kernel_shape": [2, 3], "strides": [2, 1], "pads": [1, 0, 0, 2],
            "dilations": [2, 2]}, dynamic=True)
# Integer max pools (int8, and uint8 above 127): padded windows, dilated.
case("MaxPoolInt8Padded", "MaxPool",
     {"x": batched(2, 5, 6, fn=lambda *s: rng.integers(-128, 128, s, dtype=np.int8))},
     lambda x: pool_ref(x, (3, 3), (2, 2), (1, 1, 1, 1), "max").astype(np.int8),
     attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
     rtol=0, atol=0, dynamic=True)
case("MaxPoolUint8Dilated", "MaxPool",
     {"x": fixed(rng.integers(0, 256, (1, 2, 7, 7), dtype=np.uint8))},
     lambda x: dilated_max_ref(x, (2, 2), (1, 1), (0, 0, 0, 0), (2, 2)).astype(np.uint8),
     attrs={"kernel_shape": [2, 2], "dilations": [2, 2]}, rtol=0, atol=0)
case("MaxPool1DDilated", "MaxPool", {"x": fixed(f32(2, 3, 11))},
     lambda x: lifted(dilated_max_ref)(x, (1, 3), (1, 2), (0, 1, 0, 0), (1, 3)),
     attrs={"kernel_shape": [3], "strides": [2], "pads": [1, 0],
            "dilations": [3]})
case("MaxPool", "MaxPool", {"x": batched(3, 8, 8)},
     lambda x: pool_ref(x, (3, 3), (2, 2), (1, 1, 1, 1), "max"),
     attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
     dynamic=True)
case("MaxPoolCeil", "MaxPool", {"x": fixed(f32(1, 2, 7, 7))},
     lambda x: pool_ref(x, (2, 2), (2, 2), (0, 0, 0, 0), "max", ceil=True),
     attrs={"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1})
case("AveragePool", "AveragePool", {"x": fixed(f32(2, 3, 6, 6))},
     lambda x: pool_ref(x, (2, 2), (2, 2), (0, 0, 0, 0), "avg"),
     attrs={"kernel_shape": [2, 2], "strides": [2, 2]})
case("AveragePoolPadExcluded", "AveragePool", {"x": fixed(f32(1, 2, 5, 5))},
     lambda x: pool_ref(x, (3, 3), (1, 1), (1, 1, 1, 1), "avg"),
     attrs={"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
case("AveragePoolPadIncluded", "AveragePool", {"x": fixed(f32(1, 2, 5, 5))},
     lambda x: pool_ref(x, (3, 3), (2, 2), (1, 1, 1, 1), "avg", include_pad=True),
     attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
            "count_include_pad": 1})
case("GlobalAveragePool", "GlobalAveragePool", {"x": batched(3, 4, 5)},
     lambda x: x.mean(axis=(2, 3), keepdims=True), dynamic=True)
case("GlobalMaxPool", "GlobalMaxPool", {"x": fixed(f32(2, 3, 4, 5))},
     lambda x: x.max(axis=(2, 3), keepdims=True))

case("ConvTranspose", "ConvTranspose", {"x": batched(3, 4, 5)},
     lambda x, w, b: conv_transpose_ref(x, w, b, strides=(2, 2),
                                        pads=(1, 0, 1, 1), out_pad=(1, 0)),
     attrs={"strides": [2, 2], "pads": [1, 0, 1, 1], "output_padding": [1, 0]},
     inits={"w": f32(3, 2, 3, 3), "b": f32(2)})
case("ConvTransposeGroupedDilated", "ConvTranspose", {"x": fixed(f32(1, 4, 3, 3))},
     lambda x, w: conv_transpose_ref(x, w, dil=(2, 1), group=2),
     attrs={"dilations": [2, 1], "group": 2}, inits={"w": f32(4, 3, 2, 3)})
# 3-D windows (split into 2-D ones along the depth) against n-d loops:
# strides, dilations and pads differing per dim, groups, SAME padding,
# ceil_mode, both average counts; a dynamic batch.
case("Conv3D", "Conv", {"x": batched(3, 5, 6, 7)},
     lambda x, w, b: conv_nd(x, w, b, strides=(2, 1, 2), pads=(1, 0, 1, 0, 1, 1),
                             dil=(1, 2, 1)),
     attrs={"strides": [2, 1, 2], "pads": [1, 0, 1, 0, 1, 1],
            "dilations": [1, 2, 1]},
     inits={"w": f32(4, 3, 3, 2, 3), "b": f32(4)}, dynamic=True)
case("Conv3DGroupedSame", "Conv", {"x": fixed(f32(1, 4, 5, 4, 5))},
     lambda x, w: conv_nd(x, w, pads=(1, 1, 1, 1, 1, 1), group=2),
     attrs={"group": 2, "auto_pad": "SAME_UPPER"}, inits={"w": f32(6, 2, 3, 3, 3)})
case("MaxPool3D", "MaxPool", {"x": batched(2, 6, 7, 5)},
     lambda x: pool_nd(x, (3, 2, 3), (2, 2, 1), (1, 0, 1, 1, 0, 1), "max"),
     attrs={"kernel_shape": [3, 2, 3], "strides": [2, 2, 1],
            "pads": [1, 0, 1, 1, 0, 1]}, dynamic=True)
case("MaxPool3DCeilDilated", "MaxPool", {"x": fixed(f32(1, 2, 8, 6, 7))},
     lambda x: pool_nd(x, (2, 2, 2), (2, 2, 2), (0,) * 6, "max", ceil=True,
                       dil=(2, 1, 2)),
     attrs={"kernel_shape": [2, 2, 2], "strides": [2, 2, 2], "ceil_mode": 1,
            "dilations": [2, 1, 2]})
for include in [0, 1]:
    case(f"AveragePool3DPad{'Included' if include else 'Excluded'}",
         "AveragePool", {"x": batched(3, 5, 6, 5)},
         (lambda include: lambda x: pool_nd(
             x, (3, 3, 2), (2, 1, 2), (1, 1, 0, 1, 1, 1), "avg",
             include_pad=bool(include)))(include),
         attrs={"kernel_shape": [3, 3, 2], "strides": [2, 1, 2],
                "pads": [1, 1, 0, 1, 1, 1], "count_include_pad": include},
         dynamic=True)
# ConvTranspose of 1 to 3 spatial dims; output_shape and SAME padding
# (ONNX's split of the total padding, negative totals padding the end).
case("ConvTranspose1D", "ConvTranspose", {"x": batched(3, 6)},
     lambda x, w, b: conv_transpose_nd(x, w, b, strides=(2,), begins=(1,),
                                       out=(2 * 5 + 1 + 3 + 1 - 1,)),
     attrs={"strides": [2], "pads": [1, 0], "output_padding": [1]},
     inits={"w": f32(3, 2, 4), "b": f32(2)}, dynamic=True)
case("ConvTranspose3D", "ConvTranspose", {"x": fixed(f32(1, 2, 3, 4, 3))},
     lambda x, w: conv_transpose_nd(x, w, strides=(2, 1, 2), begins=(0, 1, 0),
                                    out=(2 * 2 + 2 - 1, 3 + 3 - 1, 2 * 2 + 2 - 1)),
     attrs={"strides": [2, 1, 2], "pads": [0, 1, 0, 1, 0, 1]},
     inits={"w": f32(2, 3, 2, 3, 2)})
case("ConvTransposeOutputShape", "ConvTranspose", {"x": fixed(f32(2, 1, 3, 3))},
     lambda x, w: conv_transpose_nd(x, w, strides=(3, 2), begins=(0, 1),
                                    out=(10, 6)),
     attrs={"strides": [3, 2], "output_shape": [10, 6]},
     inits={"w": f32(1, 2, 3, 3)})
for mode, begins in [("SAME_UPPER", (0, 0)), ("SAME_LOWER", (1, 1))]:
    case(f"ConvTranspose{mode.title().replace('_', '')}", "ConvTranspose",
         {"x": fixed(f32(1, 2, 4, 5))},
         (lambda begins: lambda x, w: conv_transpose_nd(
             x, w, strides=(2, 2), begins=begins, out=(8, 10)))(begins),
         attrs={"strides": [2, 2], "auto_pad": mode},
         inits={"w": f32(2, 3, 3, 3)})
# Recurrent layers (rlx.scan per direction) against plain loops: both
# directions with sequence lengths, initial states and peepholes; layout 1
# with a dynamic batch and zero initial states; a dynamic sequence length
# (layout 0); clip, input_forget, linear_before_reset and activations with
# their alphas and betas.
def w(*shape, scale=0.6):
    return f32(*shape, lo=-scale, hi=scale)


LENS = np.array([5, 2, 4], np.int32)
case("LSTMBidirectionalLengths", None,
     {"x": fixed(f32(5, 3, 4)), "lens": fixed(LENS)},
     lambda x, lens, w, r, b, h0, c0, p: recurrent(
         "LSTM", x, w, r, b, lens, h0, c0, p, direction="bidirectional"),
     inits={"w": w(2, 16, 4), "r": w(2, 16, 4), "b": w(2, 32),
            "h0": w(2, 3, 4), "c0": w(2, 3, 4), "p": w(2, 12)},
     nodes=[("LSTM", ["x", "w", "r", "b", "lens", "h0", "c0", "p"],
             {"direction": "bidirectional", "hidden_size": 4})])
case("LSTMLayoutClipInputForget", None, {"x": batched(6, 3)},
     lambda x, w, r, b: recurrent(
         "LSTM", x, w, r, b, direction="reverse", layout=1, clip=0.5,
         input_forget=1, activations=["HardSigmoid", "Elu", "Softsign"],
         alphas=[0.3, 0.8], betas=[0.4])[:2],
     inits={"w": w(1, 20, 3), "r": w(1, 20, 5), "b": w(1, 40)},
     nodes=[("LSTM", ["x", "w", "r", "b"],
             {"direction": "reverse", "layout": 1, "clip": 0.5,
              "input_forget": 1,
              "activations": ["HardSigmoid", "Elu", "Softsign"],
              "activation_alpha": [0.3, 0.8], "activation_beta": [0.4]},
             ["y0", "y1"])], dynamic=True)
case("GRUDynamicSequence", None, {"x": batched(3, 4)},
     lambda x, w, r, b, h0: recurrent("GRU", x, w, r, b, h0=h0),
     inits={"w": w(1, 15, 4), "r": w(1, 15, 5), "b": w(1, 30), "h0": w(1, 3, 5)},
     nodes=[("GRU", ["x", "w", "r", "b", "", "h0"], {"hidden_size": 5})],
     dynamic=True)
case("GRULinearBeforeResetBidirectional", None,
     {"x": fixed(f32(4, 2, 3)), "lens": fixed(np.array([3, 4], np.int32))},
     lambda x, lens, w, r, b: recurrent(
         "GRU", x, w, r, b, lens, direction="bidirectional",
         linear_before_reset=1,
         activations=["Sigmoid", "Tanh", "HardSigmoid", "Softplus"]),
     inits={"w": w(2, 12, 3), "r": w(2, 12, 4), "b": w(2, 24)},
     nodes=[("GRU", ["x", "w", "r", "b", "lens"],
             {"direction": "bidirectional", "linear_before_reset": 1,
              "activations": ["Sigmoid", "Tanh", "HardSigmoid", "Softplus"]})])
case("RNNReluLayout", None, {"x": batched(5, 3)},
     lambda x, w, r: recurrent("RNN", x, w, r, layout=1,
                               activations=["Relu"])[0],
     inits={"w": w(1, 4, 3), "r": w(1, 4, 4)},
     nodes=[("RNN", ["x", "w", "r"], {"layout": 1, "activations": ["Relu"]},
             ["y"])], dynamic=True)
for acts, alphas, betas in [(["Affine", "LeakyRelu"], [0.5, 0.2], [0.1]),
                            (["ThresholdedRelu", "ScaledTanh"], [0.1, 1.5], [0.5])]:
    case("RNNBidirectional" + acts[0], None, {"x": fixed(f32(4, 2, 3))},
         (lambda acts, alphas, betas: lambda x, w, r, b: recurrent(
             "RNN", x, w, r, b, direction="bidirectional", activations=acts,
             alphas=alphas, betas=betas, clip=1.5))(acts, alphas, betas),
         inits={"w": w(2, 4, 3), "r": w(2, 4, 4), "b": w(2, 8)},
         nodes=[("RNN", ["x", "w", "r", "b"],
                 {"direction": "bidirectional", "activations": acts,
                  "activation_alpha": alphas, "activation_beta": betas,
                  "clip": 1.5})])
case("InstanceNormalization", "InstanceNormalization", {"x": batched(3, 4, 5)},
     lambda x, s, b: (x - x.mean((2, 3), keepdims=True)) /
     np.sqrt(x.var((2, 3), keepdims=True) + 1e-5) * s.reshape(1, 3, 1, 1) +
     b.reshape(1, 3, 1, 1), inits={"s": f32(3), "b": f32(3)}, dynamic=True)
case("ArgMax", "ArgMax", {"x": batched(7)},
     lambda x: np.argmax(x, 1), attrs={"axis": 1, "keepdims": 0}, dynamic=True)
case("ArgMinKeepdims", "ArgMin", {"x": fixed(f32(5, 3))},
     lambda x: np.argmin(x, 0)[None, :], attrs={"axis": 0})
for op, fn in [("Elu", lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
               ("Selu", lambda x: 1.05070102214813232421875 * np.where(
                   x > 0, x, 1.67326319217681884765625 * np.expm1(x))),
               ("ThresholdedRelu", lambda x: np.where(x > 0.3, x, 0)),
               ("Softplus", lambda x: np.log1p(np.exp(x))),
               ("Softsign", lambda x: x / (1 + np.abs(x))),
               ("Sign", np.sign)]:
    attrs = {"alpha": 0.5} if op == "Elu" else {"alpha": 0.3} if op == "ThresholdedRelu" else {}
    case(op, op, {"x": batched(6, fn=lambda *s: f32(*s, lo=-4, hi=4))},
         lambda x, fn=fn: fn(x.astype(np.float64)), attrs=attrs, dynamic=True)
case("PRelu", "PRelu", {"x": batched(3, 4)}, lambda x, s: np.where(x > 0, x, x * s),
     inits={"s": f32(4)}, dynamic=True)
case("Celu", "Celu", {"x": batched(6, fn=lambda *s: f32(*s, lo=-4, hi=4))},
     lambda x: np.maximum(x, 0) + np.minimum(0, 2.0 * np.expm1(x.astype(np.float64) / 2.0)),
     attrs={"alpha": 2.0}, dynamic=True)
case("Hardmax", "Hardmax", {"x": batched(5)},
     lambda x: np.eye(5, dtype=np.float32)[np.argmax(x, -1)], dynamic=True)
case("OneHot", "OneHot", {"i": fixed(np.array([[0, 3], [-1, 2]], np.int64))},
     lambda i, depth, values: np.where(
         np.arange(4)[:, None, None] == (i % 4)[None], 5.0, -1.0).astype(np.float32),
     attrs={"axis": 0}, inits={"depth": np.array(4, np.int64),
                               "values": np.array([-1, 5], np.float32)})
case("CumSum", "CumSum", {"x": batched(5)}, lambda x, a: np.cumsum(x, 1),
     inits={"a": np.array(-1, np.int64)}, dynamic=True)
case("CumSumExclusiveReverse", "CumSum", {"x": fixed(f32(4, 3))},
     lambda x, a: np.flip(np.cumsum(np.flip(x, 0), 0), 0) - x,
     attrs={"exclusive": 1, "reverse": 1}, inits={"a": np.array(0, np.int64)})
case("EinsumAttention", "Einsum", {"q": batched(2, 3, 4), "k": batched(2, 5, 4)},
     lambda q, k: np.einsum("bhqd,bhkd->bhqk", q, k),
     attrs={"equation": "bhqd,bhkd->bhqk"}, dynamic=True)
case("EinsumEllipsisWeights", "Einsum", {"x": batched(3, 4)},
     lambda x, w: np.einsum("...ij,jk->...ik", x, w),
     attrs={"equation": "...ij,jk->...ik"}, inits={"w": f32(4, 6)}, dynamic=True)
case("EinsumSumAndOuter", "Einsum", {"a": fixed(f32(3, 4)), "b": fixed(f32(5))},
     lambda a, b: np.einsum("ij,k->ki", a, b), attrs={"equation": "ij,k->ki"})
case("Tile", "Tile", {"x": fixed(f32(2, 3))}, lambda x, r: np.tile(x, (2, 3)),
     inits={"r": np.array([2, 3], np.int64)})
case("Range", None, {"x": fixed(f32(5))},
     lambda x: x + np.arange(0.5, 3.0, 0.5, dtype=np.float32),
     nodes=[("Range", ["s", "l", "d"], {}, ["r"]), ("Add", ["x", "r"], {})],
     inits={"s": np.array(0.5, np.float32), "l": np.array(3.0, np.float32),
            "d": np.array(0.5, np.float32)})

# Rounding composed from rlx ops: exact (rtol = atol = 0), at halves, near
# them (0.49999997 + 0.5 rounds to 1 in f32), beyond 2^23 / 2^52 where
# floats are integers, and at random values with a dynamic batch.
ROUNDING = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 4.5, -4.5, 0.49999997,
                     -0.49999997, 3.7, -3.7, 1e10, -1e10, 8388609.0,
                     1234567.5, -0.0, 7.0, -7.0, 1e-30], np.float32)
ROUNDING64 = np.array([2.5, -3.5, 0.49999999999999994, 4503599627370497.0,
                       -4503599627370497.0, 2251799813685248.5, 1e300, -1.25],
                      np.float64)
for op, fn in [("Floor", np.floor), ("Ceil", np.ceil), ("Round", np.round)]:
    ref = (lambda fn: lambda x: fn(x))(fn)
    case(op, op, {"x": fixed(ROUNDING)}, ref, rtol=0, atol=0)
    case(op + "F64", op, {"x": fixed(ROUNDING64)}, ref, rtol=0, atol=0, f64=True)
    case(op + "Random", op, {"x": batched(7, fn=lambda *s: f32(*s, lo=-50, hi=50))},
         ref, rtol=0, atol=0, dynamic=True)


# ---------------------------------------------------------------- quantized ops
# References follow the ONNX spec in NumPy: x / scale in f32, rounded half
# to even (np.rint), plus the zero point, saturated; integer products in
# int64.

def i8(*shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


def u8(*shape):
    return rng.integers(0, 256, shape).astype(np.uint8)


def quantize_ref(x, scale, zp, lo, hi, axis=1):
    if np.ndim(scale) == 1:
        shape = [1] * x.ndim
        shape[axis] = -1
        scale, zp = scale.reshape(shape), np.reshape(zp, shape)
    q = np.rint((x / scale).astype(np.float32)) + np.asarray(zp, np.float32)
    return np.clip(q, lo, hi)


def dynamic_quantize_ref(x):
    hi = np.float32(max(x.max(), 0))
    lo = np.float32(min(x.min(), 0))
    scale = np.float32((hi - lo) / np.float32(255))
    zp = np.clip(np.rint(np.float32(-lo) / scale), 0, 255)
    return quantize_ref(x, scale, zp, 0, 255).astype(np.int32), scale, np.int32(zp)


def to_i32():
    return {"to": TensorProto.INT32}


case("QuantizeLinearInt8", "QuantizeLinear", {"x": batched(5, 6, fn=lambda *s: f32(*s, lo=-3, hi=3))},
     lambda x, s, zp: quantize_ref(x, s, zp, -128, 127).astype(np.int8),
     inits={"s": np.array(0.02, np.float32), "zp": np.array(3, np.int8)},
     rtol=0, atol=0, dynamic=True)
case("QuantizeLinearUint8PerAxis", None, {"x": batched(4, 6, fn=lambda *s: f32(*s, lo=-3, hi=3))},
     lambda x, s, zp: quantize_ref(x, s, zp, 0, 255).astype(np.int32),
     inits={"s": np.array([0.01, 0.02, 0.05, 0.1], np.float32),
            "zp": np.array([0, 128, 200, 255], np.uint8)},
     nodes=[("QuantizeLinear", ["x", "s", "zp"], {"axis": 1}, ["q"]),
            ("Cast", ["q"], to_i32())], rtol=0, atol=0, dynamic=True)
case("QuantizeLinearDefaultUint8", None, {"x": batched(6, fn=lambda *s: f32(*s, lo=-1, hi=4))},
     lambda x, s: quantize_ref(x, s, 0, 0, 255).astype(np.int32),
     inits={"s": np.array(0.015, np.float32)},
     nodes=[("QuantizeLinear", ["x", "s"], {}, ["q"]),
            ("Cast", ["q"], to_i32())], rtol=0, atol=0)
case("DequantizeLinearInt8PerAxis", "DequantizeLinear", {"x": batched(3, 4, fn=i8)},
     lambda x, s, zp: (x.astype(np.float32) - zp.reshape(3, 1)) * s.reshape(3, 1),
     inits={"s": np.array([0.5, 0.25, 0.125], np.float32),
            "zp": np.array([-3, 0, 7], np.int8)},
     attrs={"axis": 1}, rtol=0, atol=0, dynamic=True)
case("DequantizeLinearUint8Weight", None, {"x": batched(5)},
     lambda x, wq, s, zp: x @ ((wq.astype(np.float32) - zp) * s),
     inits={"wq": u8(5, 3), "s": np.array([0.1, 0.2, 0.3], np.float32),
            "zp": np.array([100, 128, 0], np.uint8)},
     nodes=[("DequantizeLinear", ["wq", "s", "zp"], {"axis": 1}, ["w"]),
            ("MatMul", ["x", "w"], {})], dynamic=True)
# ONNX Runtime's QDQ bias: a 1-D int32 tensor, a per-tensor scale, and
# axis 1, which ONNX ignores without a per-axis scale.
case("DequantizeLinearScalarScaleIgnoresAxis", None, {"x": batched(6)},
     lambda x, bq, s: x + bq.astype(np.float32) * s,
     inits={"bq": np.array([-300, -7, 0, 5, 90, 1000], np.int32),
            "s": np.array(0.004, np.float32)},
     nodes=[("DequantizeLinear", ["bq", "s"], {"axis": 1}, ["b"]),
            ("Add", ["x", "b"], {})], rtol=1e-6, atol=0, dynamic=True)
case("DequantizeLinearInt32", "DequantizeLinear",
     {"x": batched(4, fn=lambda *s: rng.integers(-10**6, 10**6, s).astype(np.int32))},
     lambda x, s: x.astype(np.float32) * s, inits={"s": np.array(0.001, np.float32)},
     rtol=1e-6, atol=0, dynamic=True)
case("DynamicQuantizeLinear", None, {"x": batched(5, fn=lambda *s: f32(*s, lo=-2, hi=3))},
     dynamic_quantize_ref,
     nodes=[("DynamicQuantizeLinear", ["x"], {}, ["q", "y1", "zp"]),
            ("Cast", ["q"], to_i32(), ["y0"]), ("Cast", ["zp"], to_i32(), ["y2"])],
     rtol=0, atol=0, dynamic=True)
case("DynamicQuantizeLinearAllZero", None, {"x": fixed(np.zeros((2, 3), np.float32))},
     lambda x: (np.zeros((2, 3), np.int32), np.float32(0), np.int32(0)),
     nodes=[("DynamicQuantizeLinear", ["x"], {}, ["q", "y1", "zp"]),
            ("Cast", ["q"], to_i32(), ["y0"]), ("Cast", ["zp"], to_i32(), ["y2"])],
     rtol=0, atol=0)


def dynamic_matmul_ref(x, wq, wzp):
    q, _, zp = dynamic_quantize_ref(x)
    return ((q.astype(np.int64) - zp) @ (wq.astype(np.int64) - wzp)).astype(np.int32)


# ONNX Runtime's quantize_dynamic: a uint8 activation by an int8 weight.
case("MatMulIntegerDynamic", None, {"x": batched(7, fn=lambda *s: f32(*s, lo=-2, hi=3))},
     dynamic_matmul_ref, inits={"wq": i8(7, 4), "wzp": np.zeros(4, np.int8)},
     nodes=[("DynamicQuantizeLinear", ["x"], {}, ["q", "qs", "qzp"]),
            ("MatMulInteger", ["q", "wq", "qzp", "wzp"], {})],
     rtol=0, atol=0, dynamic=True)
# Zero points on both sides, a uint8 weight, a batched activation.
case("MatMulIntegerZeroPoints", "MatMulInteger", {"a": batched(5, 7, fn=i8)},
     lambda a, b, azp, bzp: ((a.astype(np.int64) - azp) @
                             (b.astype(np.int64) - bzp)).astype(np.int32),
     inits={"b": u8(7, 4), "azp": np.array(-9, np.int8),
            "bzp": np.array([0, 127, 128, 255], np.uint8)},
     rtol=0, atol=0, dynamic=True)


def qlinear_matmul_ref(a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp):
    acc = (a.astype(np.int64) - a_zp) @ (b.astype(np.int64) - b_zp)
    real = acc.astype(np.float32) * ((a_s * b_s) / y_s)
    return np.clip(np.rint(real) + np.float32(y_zp), 0, 255).astype(np.int32)


case("QLinearMatMul", None, {"a": batched(6, fn=i8)}, qlinear_matmul_ref,
     inits={"a_s": np.array(0.02, np.float32), "a_zp": np.array(5, np.int8),
            "b": u8(6, 3), "b_s": np.array([0.01, 0.03, 0.02], np.float32),
            "b_zp": np.array([128, 120, 140], np.uint8),
            "y_s": np.array(0.05, np.float32), "y_zp": np.array(128, np.uint8)},
     nodes=[("QLinearMatMul", ["a", "a_s", "a_zp", "b", "b_s", "b_zp", "y_s", "y_zp"],
             {}, ["q"]), ("Cast", ["q"], to_i32())], rtol=0, atol=0, dynamic=True)


def requantized(v, axis=None):
    """v's int8 codes and scales as --quantize=int8 makes them: symmetric,
    the largest |v| (per column with axis=0) over 127."""
    top = np.abs(v).max(axis=axis)
    scale = np.maximum((top / np.float32(127)).astype(np.float32),
                       np.float32(np.finfo(np.float32).tiny))
    return np.clip(np.rint((v / scale).astype(np.float32)), -127, 127), scale


def qdq_matmul_ref(x, s, wq, ws):
    """Q -> DQ of x (int8, saturating to [-128, 127] as QuantizeLinear
    does) by a per-column int8 weight, then requantized and multiplied in
    integers: what --quantize=int8 computes from a QDQ model."""
    q = np.clip(np.rint((x / s).astype(np.float32)), -128, 127)
    xq, sx = requantized((q * s).astype(np.float32))
    wq2, sw = requantized((wq * ws).astype(np.float32), axis=0)
    acc = xq.astype(np.int64) @ wq2.astype(np.int64)
    return acc.astype(np.float32) * (sx * sw).astype(np.float32)


def int_conv(x, w, **kw):
    """An integer convolution, exact (|sums| < 2^24 in conv_ref's f32)."""
    return conv_ref(x.astype(np.float64), w.astype(np.float64), **kw).astype(np.int64)


def dynamic_conv_ref(x, w):
    q, _, zp = dynamic_quantize_ref(x)
    return int_conv(q.astype(np.int64) - zp, w, strides=(2, 2),
                    pads=(1, 1, 1, 1)).astype(np.int32)


# ONNX Runtime's dynamic quantization of a conv: a uint8 activation with a
# zero point (the correction conv(x') + alpha conv(1) includes the padding).
case("ConvIntegerDynamic", None, {"x": batched(3, 6, 5, fn=lambda *s: f32(*s, lo=-1, hi=3))},
     dynamic_conv_ref, inits={"w": i8(4, 3, 3, 3)},
     nodes=[("DynamicQuantizeLinear", ["x"], {}, ["q", "qs", "qzp"]),
            ("ConvInteger", ["q", "w", "qzp"], {"strides": [2, 2], "pads": [1, 1, 1, 1]})],
     rtol=0, atol=0, dynamic=True)


def qlinear_conv_ref(x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp, b):
    acc = int_conv(x.astype(np.int64) - x_zp, w, pads=(1, 0, 1, 0), group=2)
    acc = acc + b.reshape(1, -1, 1, 1)
    real = acc.astype(np.float32) * ((x_s * w_s.reshape(1, -1, 1, 1)) / y_s)
    return np.clip(np.rint(real) + np.float32(y_zp), 0, 255).astype(np.int32)


case("QLinearConvGrouped", None, {"x": batched(4, 5, 5, fn=i8)}, qlinear_conv_ref,
     inits={"x_s": np.array(0.05, np.float32), "x_zp": np.array(-7, np.int8),
            "w": i8(6, 2, 3, 2), "w_s": np.linspace(0.001, 0.003, 6).astype(np.float32),
            "w_zp": np.zeros(6, np.int8), "y_s": np.array(0.4, np.float32),
            "y_zp": np.array(120, np.uint8),
            "b": rng.integers(-3000, 3000, 6).astype(np.int32)},
     nodes=[("QLinearConv", ["x", "x_s", "x_zp", "w", "w_s", "w_zp", "y_s", "y_zp", "b"],
             {"pads": [1, 0, 1, 0], "group": 2}, ["q"]),
            ("Cast", ["q"], to_i32())], rtol=0, atol=0, dynamic=True)

QDQ_W = i8(6, 4)
QDQ_W[0] = 127


def saturating(*shape):
    x = f32(*shape, lo=-3, hi=3)
    x[..., 0] = 4.0  # beyond 127 * s
    return x


# A QDQ model (ONNX Runtime's quantize_static) compiled with
# --quantize=int8: its float MatMul between quantize-dequantize pairs runs
# on the int8 kernel. Where the activation's codes stay within [-127, 127]
# and each weight column uses its full range, the requantized codes are the
# model's own (the first batch row saturates at 127 on purpose).
case("QDQMatMulAsInt8", None, {"x": batched(6, fn=saturating)},
     qdq_matmul_ref,
     inits={"s": np.array(0.02, np.float32), "zp": np.array(0, np.int8),
            "wq": QDQ_W, "ws": np.array([0.01, 0.02, 0.03, 0.04], np.float32),
            "wzp": np.zeros(4, np.int8)},
     nodes=[("QuantizeLinear", ["x", "s", "zp"], {}, ["q"]),
            ("DequantizeLinear", ["q", "s", "zp"], {}, ["xd"]),
            ("DequantizeLinear", ["wq", "ws", "wzp"], {"axis": 1}, ["w"]),
            ("MatMul", ["xd", "w"], {})],
     rtol=1e-5, atol=1e-6, dynamic=True, rlxc_args=["--quantize=int8"])


# ------------------------------------------- unsigned and 16-bit integers
# rlx computes uint8/uint16/int16 in i32 and uint32/uint64 in i64; these
# check NumPy's wrap-around of the narrow type after each op, unsigned
# comparisons and conversions, and the ui8 ... ui64 and i16 dtypes at the
# boundary (inputs, outputs, an initializer).

def uints(dtype, lo=0, hi=None):
    info = np.iinfo(dtype)
    return lambda *shape: rng.integers(lo, info.max if hi is None else hi,
                                       shape, dtype=dtype, endpoint=True)


case("Uint8AddWraps", "Add", {"a": batched(5, fn=uints(np.uint8, 100)),
                              "b": batched(5, fn=uints(np.uint8, 100))},
     lambda a, b: a + b, rtol=0, atol=0, dynamic=True)
# (a + b) wraps before the division reads it, then a - d wraps below 0.
case("Uint8ChainWrapsEachStep", None,
     {"a": batched(6, fn=uints(np.uint8, 128)), "b": batched(6, fn=uints(np.uint8, 128))},
     lambda a, b, c, d: (a + b) // c - d,
     inits={"c": np.array([3], np.uint8), "d": np.array(200, np.uint8)},
     nodes=[("Add", ["a", "b"], {}, ["s"]), ("Div", ["s", "c"], {}, ["q"]),
            ("Sub", ["q", "d"], {})], rtol=0, atol=0, dynamic=True)
case("Uint8ImageToFloat", None, {"img": batched(4, 4, 3, fn=uints(np.uint8))},
     lambda img, scale: img.astype(np.float32) * scale,
     inits={"scale": np.array(1 / 255, np.float32)},
     nodes=[("Cast", ["img"], {"to": TensorProto.FLOAT}, ["f"]),
            ("Mul", ["f", "scale"], {})], dynamic=True)
case("FloatToUint8Truncates", "Cast",
     {"x": batched(7, fn=lambda *s: f32(*s, lo=0, hi=255.9))},
     lambda x: x.astype(np.uint8), attrs={"to": TensorProto.UINT8},
     rtol=0, atol=0, dynamic=True)
case("Uint8MaxAndCompare", None,
     {"a": batched(6, fn=uints(np.uint8)), "b": batched(6, fn=uints(np.uint8))},
     lambda a, b: (np.maximum(a, b), a > b),
     nodes=[("Max", ["a", "b"], {}, ["y0"]), ("Greater", ["a", "b"], {}, ["y1"])],
     outputs=2, rtol=0, atol=0, dynamic=True)
case("Int16MulWraps", "Mul", {"a": batched(6, fn=uints(np.int16, -32768)),
                              "b": batched(6, fn=uints(np.int16, -300, 300))},
     lambda a, b: a * b, rtol=0, atol=0, dynamic=True)
case("Uint16SubWraps", "Sub", {"a": batched(6, fn=uints(np.uint16)),
                               "b": batched(6, fn=uints(np.uint16))},
     lambda a, b: a - b, rtol=0, atol=0)
# Values above 2^31 (negative as int32) compare and divide as unsigned.
case("Uint32LargeValues", None,
     {"a": batched(5, fn=uints(np.uint32, 2**31)), "b": batched(5, fn=uints(np.uint32, 1))},
     lambda a, b: (a + b, np.minimum(a, b), a // b),
     nodes=[("Add", ["a", "b"], {}, ["y0"]), ("Min", ["a", "b"], {}, ["y1"]),
            ("Div", ["a", "b"], {}, ["y2"])], outputs=3, rtol=0, atol=0)
# uint64 values of 2^63 and more: sums wrap, equality and the conversion
# to float read them as unsigned.
case("Uint64WrapsAndConverts", None,
     {"a": fixed(np.array([2**64 - 1, 2**63, 5, 2**63 + 12345], np.uint64)),
      "b": fixed(np.array([2, 2**63, 7, 1], np.uint64))},
     lambda a, b: (a + b, a == b, a.astype(np.float64)),
     nodes=[("Add", ["a", "b"], {}, ["y0"]), ("Equal", ["a", "b"], {}, ["y1"]),
            ("Cast", ["a"], {"to": TensorProto.DOUBLE}, ["y2"])],
     outputs=3, rtol=0, atol=0, f64=True)
# BitShift by plain Python ints: the low bits of x * 2^y or x // 2^y, and 0
# for shifts of the width or more (NumPy's result).
def shift_ref(x, y, direction):
    bits = x.dtype.itemsize * 8
    def one(a, b):
        a, b = int(a), int(b)
        if b >= bits:
            return 0
        return ((a << b) if direction == "LEFT" else (a >> b)) % (1 << bits)
    return np.vectorize(one, otypes=[np.uint64])(x, y).astype(x.dtype)


case("BitShiftUint8Left", "BitShift",
     {"x": batched(9, fn=uints(np.uint8)), "s": batched(9, fn=uints(np.uint8, 0, 9))},
     lambda x, s: shift_ref(x, s, "LEFT"), attrs={"direction": "LEFT"},
     rtol=0, atol=0, dynamic=True)
case("BitShiftUint32Right", "BitShift",
     {"x": fixed(rng.integers(0, 2**32, (3, 6), dtype=np.uint64).astype(np.uint32)),
      "s": fixed(np.arange(18, dtype=np.uint32).reshape(3, 6) * 2)},
     lambda x, s: shift_ref(x, s, "RIGHT"), attrs={"direction": "RIGHT"},
     rtol=0, atol=0)
case("BitShiftUint64Left", "BitShift",
     {"x": fixed(np.array([3, 2**63 + 1, 2**64 - 1, 5], np.uint64)),
      "s": fixed(np.array([62, 1, 4, 70], np.uint64))},
     lambda x, s: shift_ref(x, s, "LEFT"), attrs={"direction": "LEFT"},
     rtol=0, atol=0)
case("BitShiftUint64Right", "BitShift",
     {"x": fixed(np.array([2**64 - 1, 2**63, 2**63 + 12345, 7, 2**64 - 2, 9], np.uint64)),
      "s": fixed(np.array([0, 63, 5, 1, 64, 200], np.uint64))},
     lambda x, s: shift_ref(x, s, "RIGHT"), attrs={"direction": "RIGHT"},
     rtol=0, atol=0)
case("CastLikeUint8", "CastLike", {"x": batched(6, fn=lambda *s: f32(*s, lo=0, hi=255.5))},
     lambda x, like: x.astype(np.uint8), inits={"like": np.zeros(1, np.uint8)},
     rtol=0, atol=0, dynamic=True)
# Integer arithmetic on initializers folds at import, wrapped like the rest.
case("Uint8FoldedConstants", None, {"x": batched(4, fn=uints(np.uint8))},
     lambda x, a, b: x + (a + b),
     inits={"a": np.array([200, 1, 255, 0], np.uint8),
            "b": np.array([100, 2, 255, 0], np.uint8)},
     nodes=[("Add", ["a", "b"], {}, ["c"]), ("Add", ["x", "c"], {})],
     rtol=0, atol=0, dynamic=True)
# Constant and ConstantOfShape nodes of uint8 are uint8 too: their sum with
# an input wraps, whichever operand comes first.
case("Uint8ConstantNodes", None, {"x": fixed(np.array([1, 100, 200, 255], np.uint8))},
     lambda x: (np.uint8(250) + x, np.full((2,), 7, np.uint8)),
     nodes=[("Constant", [], {"value": numpy_helper.from_array(np.array(250, np.uint8))}, ["c"]),
            ("Add", ["c", "x"], {}, ["y0"]),
            ("Constant", [], {"value": numpy_helper.from_array(np.array([2], np.int64))}, ["s"]),
            ("ConstantOfShape", ["s"], {"value": numpy_helper.from_array(np.array([7], np.uint8))}, ["y1"])],
     outputs=2, rtol=0, atol=0)
# A uint8 initializer (an rlx param held as i32) read with a uint8 input.
case("Uint8Initializer", "Sub", {"x": batched(8, fn=uints(np.uint8))},
     lambda x, w: x - w, inits={"w": u8(8)}, rtol=0, atol=0, dynamic=True)


# ------------------------------------------------------------- GridSample
def grid_sample_ref(x, grid, align, padding):
    """Bilinear GridSample by plain loops (PyTorch's grid_sample): points
    denormalized, moved inside for border padding, four taps blended; a
    tap outside reads 0 (zeros) or the nearest edge (border)."""
    n, c, h, w = x.shape
    _, ho, wo, _ = grid.shape
    y = np.zeros((n, c, ho, wo))
    def denorm(g, size):
        return (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2
    def tap(b, i, j):
        if padding == "border":
            i, j = min(max(i, 0), h - 1), min(max(j, 0), w - 1)
        elif not (0 <= i < h and 0 <= j < w):
            return np.zeros(c)
        return x[b, :, i, j]
    for b in range(n):
        for i in range(ho):
            for j in range(wo):
                px = denorm(float(grid[b, i, j, 0]), w)
                py = denorm(float(grid[b, i, j, 1]), h)
                lo = 0.0 if align else -0.5
                if padding == "border":
                    if not lo <= px <= (w - 1 if align else w - 0.5):
                        px = min(max(px, 0), w - 1)
                    if not lo <= py <= (h - 1 if align else h - 0.5):
                        py = min(max(py, 0), h - 1)
                x0, y0 = math.floor(px), math.floor(py)
                tx, ty = px - x0, py - y0
                y[b, :, i, j] = ((1 - ty) * ((1 - tx) * tap(b, y0, x0) + tx * tap(b, y0, x0 + 1))
                                 + ty * ((1 - tx) * tap(b, y0 + 1, x0) + tx * tap(b, y0 + 1, x0 + 1)))
    return y


for align in (0, 1):
    for padding in ("zeros", "border"):
        case(f"GridSampleBilinear{padding.title()}Align{align}", "GridSample",
             {"x": fixed(f32(2, 3, 5, 4)),
              "grid": fixed(f32(2, 3, 6, 2, lo=-1.3, hi=1.3))},
             lambda x, grid, align=align, padding=padding:
                 grid_sample_ref(x, grid, align, padding),
             attrs={"align_corners": align, "padding_mode": padding},
             opset=16, rtol=1e-4, atol=1e-5)


def py_mod(a, b):
    return np.mod(a, b)  # the sign of the divisor


MOD_A = np.array([7, -7, 7, -7, 0, 5, -5, 123456789, -2**31 + 1], np.int32)
MOD_B = np.array([3, 3, -3, -3, 4, 5, -5, -1000, 7], np.int32)
case("ModInt", "Mod", {"a": fixed(MOD_A), "b": fixed(MOD_B)}, py_mod)
case("ModIntFmod", "Mod", {"a": fixed(MOD_A), "b": fixed(MOD_B)},
     lambda a, b: np.fmod(a, b),
     attrs={"fmod": 1})
case("ModInt64Broadcast", "Mod",
     {"a": fixed(np.arange(-12, 12, dtype=np.int64).reshape(4, 6))},
     lambda a, b: np.mod(a, b), inits={"b": np.array([5, -5, 3, -3, 7, 1], np.int64)})
# Float Mod through rlx.rem, exact like C's fmod: quotients far from 1
# (where a - trunc(a / b) * b would round), both signs, a dynamic batch.
MODF_A = np.array([7.5, -7.5, 7.5, -7.5, 0.0, 1e7 + 1, -3.0e-3, 5.0],
                  np.float32)
MODF_B = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 0.1, 1e-3, 5.0], np.float32)
case("ModFloatFmod", "Mod", {"a": fixed(MODF_A), "b": fixed(MODF_B)},
     lambda a, b: np.fmod(a, b), attrs={"fmod": 1}, rtol=0, atol=0)
case("ModFloatPython", "Mod", {"a": fixed(MODF_A), "b": fixed(MODF_B)},
     lambda a, b: np.mod(a, b), rtol=1e-7, atol=0)
case("ModFloatDynamic", "Mod", {"a": batched(4, fn=lambda *s: f32(*s, lo=-9, hi=9))},
     lambda a, b: np.fmod(a, b), attrs={"fmod": 1},
     inits={"b": np.array([1.5, -0.7, 2.0, -3.25], np.float32)}, dynamic=True,
     rtol=0, atol=0)
case("ReduceProd", "ReduceProd", {"x": fixed(f32(3, 7, 5, lo=0.5, hi=1.5))},
     lambda x: np.prod(x.astype(np.float64), axis=(1, 2), keepdims=True),
     attrs={"axes": [1, -1]}, opset=13)
case("ReduceProdAll", "ReduceProd", {"x": fixed(f32(3, 5, lo=0.5, hi=1.5))},
     lambda x: np.prod(x.astype(np.float64)), attrs={"keepdims": 0}, opset=13)
case("ReduceProdInt", "ReduceProd",
     {"x": fixed(np.arange(1, 34, dtype=np.int64).reshape(3, 11) % 5 + 1)},
     lambda x: np.prod(x, axis=1), attrs={"axes": [1], "keepdims": 0}, opset=13)
case("ReduceProdDynamicBatch", "ReduceProd",
     {"x": batched(9, fn=lambda *s: f32(*s, lo=0.5, hi=1.5))},
     lambda x: np.prod(x.astype(np.float64), axis=1, keepdims=True),
     attrs={"axes": [1]}, opset=13, dynamic=True)
SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf, -0.0, 3.4e38, -1.0], np.float32)
case("IsNaN", "IsNaN", {"x": fixed(SPECIAL)}, lambda x: np.isnan(x))
case("IsInf", "IsInf", {"x": fixed(SPECIAL)}, lambda x: np.isinf(x))
case("IsInfNegative", "IsInf", {"x": fixed(SPECIAL)},
     lambda x: np.isneginf(x), attrs={"detect_positive": 0})
case("IsInfNeither", "IsInf", {"x": fixed(SPECIAL)},
     lambda x: np.zeros(x.shape, bool),
     attrs={"detect_positive": 0, "detect_negative": 0})
case("Shrink", "Shrink", {"x": batched(6)},
     lambda x: np.where(x < -0.7, x + 0.25, np.where(x > 0.7, x - 0.25, 0)),
     attrs={"lambd": 0.7, "bias": 0.25}, dynamic=True)

def depth_to_space(x, bs, mode):
    b, c, h, w = x.shape
    if mode == "DCR":
        t = x.reshape(b, bs, bs, c // bs**2, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(b, c // bs**2, bs, bs, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(b, c // bs**2, h * bs, w * bs)


for mode in ["DCR", "CRD"]:
    case("DepthToSpace" + mode, "DepthToSpace", {"x": batched(8, 2, 3)},
         (lambda mode: lambda x: depth_to_space(x, 2, mode))(mode),
         attrs={"blocksize": 2, "mode": mode}, dynamic=True)
case("SpaceToDepth", "SpaceToDepth", {"x": batched(2, 4, 6)},
     lambda x: x.reshape(x.shape[0], 2, 2, 2, 3, 2).transpose(0, 3, 5, 1, 2, 4)
     .reshape(x.shape[0], 8, 2, 3), attrs={"blocksize": 2}, dynamic=True)
case("EyeLike", "EyeLike", {"x": fixed(f32(3, 5))},
     lambda x: np.eye(3, 5, k=-1, dtype=np.int64),
     attrs={"k": -1, "dtype": TensorProto.INT64})

for k in [-1, 2]:
    case(f"TriluRuntimeK{k}", "Trilu",
         {"x": batched(4, 5), "k": fixed(np.array(k, np.int64))},
         lambda x, k: np.triu(x, int(k)), dynamic=False)
    case(f"TriluLowerRuntimeK{k}", "Trilu",
         {"x": batched(4, 5), "k": fixed(np.array(k, np.int64))},
         lambda x, k: np.tril(x, int(k)), attrs={"upper": 0})

# Pow of an integer base: computed in f64, cast back to the base's type.
case("PowIntInt", "Pow", {"x": fixed(np.array([2, 3, -2, 5, 7], np.int32)),
                          "e": fixed(np.array([3, 2, 3, 0, 9], np.int32))},
     lambda x, e: np.power(x, e))
case("PowIntFloat", "Pow", {"x": fixed(np.array([1, 2, 3, 10], np.int64)),
                            "e": fixed(np.array([0.5, 2.0, 1.5, 3.0], np.float32))},
     lambda x, e: np.power(x.astype(np.float64), e).astype(np.int64))

# Hyperbolic functions composed from exp/log/sqrt, against NumPy in f64 at
# f32 precision (rtol 4e-7, about 3 ulp), near 0 (where the closed forms
# cancel: log1p and expm1 there), near 1 for acosh, and far out.
TINY = np.array([1e-30, -1e-7, 3e-5, -0.001, 0.0312, 0.0313, -0.03125, 0.2,
                 -0.7, 1.5, -3.0, 8.0], np.float32)
for op, fn, xs in [
        ("Sinh", np.sinh, TINY), ("Cosh", np.cosh, TINY),
        ("Asinh", np.arcsinh, np.concatenate(
            [TINY, np.array([1e5, -3e7, 1e30], np.float32)])),
        ("Atanh", np.arctanh, np.concatenate(
            [TINY[np.abs(TINY) < 1], np.array([0.9, -0.999], np.float32)])),
        ("Acosh", np.arccosh, np.array([1.0, 1.0001, 1.5, 2.0, 10.0, 1e5],
                                       np.float32))]:
    case(op, op, {"x": fixed(xs)},
         (lambda fn: lambda x: fn(x.astype(np.float64)))(fn),
         rtol=4e-7, atol=1e-37)
    lo, hi = (1.0, 3.0) if op == "Acosh" else (-0.99, 0.99)
    case(op + "Random", op,
         {"x": batched(9, fn=(lambda lo, hi: lambda *s: f32(*s, lo=lo, hi=hi))(lo, hi))},
         (lambda fn: lambda x: fn(x.astype(np.float64)))(fn),
         rtol=4e-7, atol=1e-37, dynamic=True)

# Trigonometry: Sin, Cos and Atan as rlx ops, Tan, Asin and Acos composed
# from them, against NumPy in f64: near 0, at the ends of asin's and acos's
# domain (+-1, where the composed forms reach atan(+-inf)), out of it (NaN)
# and over several periods.
def quiet_nan(fn, x):
    with np.errstate(invalid="ignore"):
        return fn(x)


TRIG = np.array([0.0, 1e-7, -3e-4, 0.5, -0.99, 0.999999, 1.0, -1.0, 1.5,
                 -7.25, 30.0], np.float32)
for op, fn in [("Sin", np.sin), ("Cos", np.cos), ("Tan", np.tan),
               ("Atan", np.arctan), ("Asin", np.arcsin), ("Acos", np.arccos)]:
    case(op, op, {"x": fixed(TRIG)},
         (lambda fn: lambda x: quiet_nan(fn, x.astype(np.float64)))(fn),
         rtol=2e-6, atol=2e-7)
    case(op + "Random", op,
         {"x": batched(9, fn=lambda *s: f32(*s, lo=-1, hi=1))},
         (lambda fn: lambda x: fn(x.astype(np.float64)))(fn),
         rtol=2e-6, atol=2e-7, dynamic=True)


def mvn_ref(x, axes):
    x = x.astype(np.float64)
    d = x - x.mean(axis=axes, keepdims=True)
    return d / (np.sqrt((d * d).mean(axis=axes, keepdims=True)) + 1e-9)


case("MeanVarianceNormalization", "MeanVarianceNormalization",
     {"x": batched(3, 4, 5)}, lambda x: mvn_ref(x, (0, 2, 3)), dynamic=True)
case("MeanVarianceNormalizationAxes", "MeanVarianceNormalization",
     {"x": batched(3, 4, 5)}, lambda x: mvn_ref(x, (1, 3)),
     attrs={"axes": [1, -1]}, dynamic=True)

# Control flow: If, Loop and Scan with subgraphs reading outer values.
def vi(name, elem=TensorProto.FLOAT, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def subgraph(name, nodes, inputs, outputs):
    """A body: nodes as (op, ins, outs, attrs) tuples; inputs and outputs as
    (name, onnx type) pairs, their shapes left unknown as PyTorch leaves
    them."""
    return helper.make_graph(
        [helper.make_node(op, ins, outs, name=f"{name}{i}", **attrs)
         for i, (op, ins, outs, attrs) in enumerate(nodes)], name,
        [vi(n, t) for n, t in inputs], [vi(n, t) for n, t in outputs])


F, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
THEN = subgraph("then", [("Mul", ["x", "w"], ["t"], {})], [], [("t", F)])
ELSE = subgraph("else", [("Sub", ["x", "one"], ["e"], {})], [], [("e", F)])
for label, sign in [("True", 1.0), ("False", -1.0)]:
    # cond = sum(x) > 0: then x * w (a captured weight), else x - 1 (a
    # constant of the main graph).
    case("If" + label, None, {"x": batched(3, fn=lambda *s: sign * f32(*s, lo=0.1))},
         lambda x, w, one: x * w if x.sum() > 0 else x - one,
         nodes=[("ReduceSum", ["x"], {"keepdims": 0}, ["sum"]),
                ("Greater", ["sum", "zero"], {}, ["cond"]),
                ("If", ["cond"], {"then_branch": THEN, "else_branch": ELSE})],
         inits={"w": f32(3), "one": np.array(1.0, np.float32),
                "zero": np.array(0.0, np.float32)}, dynamic=True)


# A condition on static dims (PyTorch's `if x.size(1) > 2`) folds at import:
# the branch taken is imported in place (the other would not type-check:
# it concatenates to another shape), and the shape it returns still folds
# into the Reshape after it.
SHAPE_THEN = subgraph("st", [("Shape", ["x"], ["tshape"], {}),
                             ("Mul", ["x", "w"], ["tx"], {})],
                      [], [("tshape", I64), ("tx", F)])
SHAPE_ELSE = subgraph("se", [("Concat", ["x", "x"], ["ex"], {"axis": 1}),
                             ("Shape", ["ex"], ["eshape"], {})],
                      [], [("eshape", I64), ("ex", F)])
case("IfStaticCondition", None, {"x": fixed(f32(2, 3))},
     lambda x, w: (x * w).reshape(2, 3),
     nodes=[("Shape", ["x"], {}, ["shape"]),
            ("Gather", ["shape", "one"], {"axis": 0}, ["d"]),
            ("Greater", ["d", "two"], {}, ["wide"]),
            ("Not", ["wide"], {}, ["narrow"]),
            ("Not", ["narrow"], {}, ["cond"]),
            ("If", ["cond"], {"then_branch": SHAPE_THEN,
                              "else_branch": SHAPE_ELSE}, ["s", "v"]),
            ("Flatten", ["v"], {"axis": 0}, ["flat"]),
            ("Reshape", ["flat", "s"], {})],
     inits={"w": f32(3), "one": np.array(1, np.int64), "two": np.array(2, np.int64)})


def loop_for_ref(x, w):
    s, ys = np.zeros_like(x), []
    for i in range(4):
        s = s * np.float32(0.5) + x * w + np.float32(i)
        ys.append(s)
    return s, np.stack(ys)


# PyTorch's `for` loop: a constant trip count, the condition passed through;
# the body reads x (an input) and w (a weight) from outside.
LOOP_FOR = subgraph("for", [
    ("Mul", ["s", "half"], ["sh"], {}), ("Mul", ["x", "w"], ["xw"], {}),
    ("Add", ["sh", "xw"], ["u"], {}), ("Cast", ["i"], ["fi"], {"to": F}),
    ("Add", ["u", "fi"], ["s2"], {}), ("Identity", ["cin"], ["cout"], {}),
    ("Identity", ["s2"], ["y"], {})],
    [("i", I64), ("cin", BOOL), ("s", F)], [("cout", BOOL), ("s2", F), ("y", F)])
case("LoopFor", None, {"x": batched(3)}, loop_for_ref,
     nodes=[("Mul", ["x", "zero"], {}, ["s0"]),
            ("Loop", ["m", "t", "s0"], {"body": LOOP_FOR}, ["y0", "y1"])],
     inits={"w": f32(3), "m": np.array(4, np.int64), "t": np.array(True),
            "zero": np.array(0.0, np.float32), "half": np.array(0.5, np.float32)},
     dynamic=True)


def loop_while_ref(x):
    s, i = x, 0
    while True:
        s = s * np.float32(2)
        i += 1
        if not s.sum() < 100:
            break
    return s, np.array(i, np.int64)


# A `while` loop: the condition computed in the body, no trip count
# (PyTorch writes INT64_MAX; here it is left out); the step count is carried.
LOOP_WHILE = subgraph("while", [
    ("Mul", ["s", "two"], ["s2"], {}), ("ReduceSum", ["s2"], ["sum"], {"keepdims": 0}),
    ("Less", ["sum", "limit"], ["cout"], {}), ("Add", ["n", "ione"], ["n2"], {})],
    [("i", I64), ("cin", BOOL), ("s", F), ("n", I64)],
    [("cout", BOOL), ("s2", F), ("n2", I64)])
case("LoopWhile", None, {"x": fixed(f32(5, lo=0.5, hi=1.0))}, loop_while_ref,
     nodes=[("Loop", ["", "t", "x", "izero"], {"body": LOOP_WHILE}, ["y0", "y1"])],
     inits={"t": np.array(True), "two": np.array(2.0, np.float32),
            "limit": np.array(100.0, np.float32), "izero": np.array(0, np.int64),
            "ione": np.array(1, np.int64)})


def loop_count_ref(x, m):
    s = x
    for i in range(int(m)):
        s = s + np.float32(i)
    return s


# A trip count known only at run time (an input): an rlx.while on i < M.
LOOP_COUNT = subgraph("count", [
    ("Cast", ["i"], ["fi"], {"to": F}), ("Add", ["s", "fi"], ["s2"], {}),
    ("Identity", ["cin"], ["cout"], {})],
    [("i", I64), ("cin", BOOL), ("s", F)], [("cout", BOOL), ("s2", F)])
case("LoopTripCountInput", None,
     {"x": batched(3), "m": fixed(np.array(5, np.int64))}, loop_count_ref,
     nodes=[("Loop", ["m", "", "x"], {"body": LOOP_COUNT})], dynamic=False)


def loop_dim_ref(x):
    s, ys = np.zeros(x.shape[1], np.float32), []
    for t in range(x.shape[0]):
        s = s + x[t]
        ys.append(s * np.float32(t))
    return s, np.stack(ys)


# A trip count that is a dynamic dim (Shape -> Gather: the batch) with a
# scan output: an rlx.scan over a tensor of that dim's length.
LOOP_DIM = subgraph("dim", [
    ("Gather", ["x", "i"], ["xt"], {"axis": 0}), ("Add", ["s", "xt"], ["s2"], {}),
    ("Cast", ["i"], ["fi"], {"to": F}), ("Mul", ["s2", "fi"], ["y"], {}),
    ("Identity", ["cin"], ["cout"], {})],
    [("i", I64), ("cin", BOOL), ("s", F)], [("cout", BOOL), ("s2", F), ("y", F)])
case("LoopDynamicDimTrips", None, {"x": batched(4)}, loop_dim_ref,
     nodes=[("Shape", ["x"], {}, ["shape"]),
            ("Gather", ["shape", "zero"], {"axis": 0}, ["m"]),
            ("Gather", ["x", "zero"], {"axis": 0}, ["row"]),
            ("Mul", ["row", "fzero"], {}, ["s0"]),
            ("Loop", ["m", "", "s0"], {"body": LOOP_DIM}, ["y0", "y1"])],
     inits={"zero": np.array(0, np.int64), "fzero": np.array(0.0, np.float32)},
     dynamic=True)


def loop_nested_ref(x, w):
    s = x
    for i in range(3):
        s = s * w if i % 2 == 0 else s + w
    return s


# A Loop whose body holds an If reading w from the main graph (captured
# through two levels) and the loop's own iteration number.
NESTED_THEN = subgraph("nt", [("Mul", ["s", "w"], ["a"], {})], [], [("a", F)])
NESTED_ELSE = subgraph("ne", [("Add", ["s", "w"], ["b"], {})], [], [("b", F)])
LOOP_NESTED = subgraph("nested", [
    ("Div", ["i", "itwo"], ["h"], {}), ("Mul", ["h", "itwo"], ["h2"], {}),
    ("Equal", ["h2", "i"], ["even"], {}),
    ("If", ["even"], ["s2"], {"then_branch": NESTED_THEN, "else_branch": NESTED_ELSE}),
    ("Identity", ["cin"], ["cout"], {})],
    [("i", I64), ("cin", BOOL), ("s", F)], [("cout", BOOL), ("s2", F)])
case("LoopNestedIf", None, {"x": batched(3)}, loop_nested_ref,
     nodes=[("Loop", ["m", "", "x"], {"body": LOOP_NESTED})],
     inits={"w": f32(3), "m": np.array(3, np.int64), "itwo": np.array(2, np.int64)},
     dynamic=True)


def scan_ref(s0, xs, w):
    # xs [N, T, 3] scanned along axis 1 backwards; outputs stacked forwards
    # (ONNX: iteration k at position k) along axis 1.
    s, ys = s0, []
    for t in reversed(range(xs.shape[1])):
        s = s + xs[:, t] * w
        ys.append(s * np.float32(2))
    return s, np.stack(ys, axis=1)


SCAN_BODY = subgraph("scan", [
    ("Mul", ["xt", "w"], ["xw"], {}), ("Add", ["s", "xw"], ["s2"], {}),
    ("Mul", ["s2", "two"], ["y"], {})],
    [("s", F), ("xt", F)], [("s2", F), ("y", F)])
case("ScanReverse", None, {"s0": batched(3), "xs": batched(4, 3)}, scan_ref,
     nodes=[("Scan", ["s0", "xs"], {"body": SCAN_BODY, "num_scan_inputs": 1,
                                    "scan_input_axes": [1],
                                    "scan_input_directions": [1],
                                    "scan_output_axes": [1]}, ["y0", "y1"])],
     inits={"w": f32(3), "two": np.array(2.0, np.float32)}, dynamic=True)


CUMSUM_BODY = subgraph("cumsum", [("Add", ["acc", "x"], ["acc2"], {}),
                                  ("Identity", ["acc2"], ["y"], {})],
                       [("acc", F), ("x", F)], [("acc2", F), ("y", F)])
case("ScanCumsum", None, {"xs": fixed(f32(6, 2))},
     lambda xs: (xs.sum(axis=0), np.cumsum(xs, axis=0)),
     nodes=[("Slice", ["xs", "z0", "z1", "z2"], {}, ["row"]),
            ("Mul", ["row", "fzero"], {}, ["init"]),
            ("Reshape", ["init", "shape"], {}, ["init2"]),
            ("Scan", ["init2", "xs"], {"body": CUMSUM_BODY, "num_scan_inputs": 1},
             ["y0", "y1"])],
     inits={"z0": np.array([0], np.int64), "z1": np.array([1], np.int64),
            "z2": np.array([0], np.int64), "fzero": np.array(0.0, np.float32),
            "shape": np.array([2], np.int64)})

# Old opsets, converted by ONNX's version converter.
case("GemmOpset9", "Gemm", {"a": fixed(f32(2, 6))}, lambda a, w, c: a @ w + c,
     inits={"w": W, "c": f32(5)}, opset=9)
case("SoftmaxOpset11", "Softmax", {"x": fixed(f32(2, 3, 4))},
     lambda x: softmax(x.reshape(2, 12), 1).reshape(2, 3, 4), opset=11)


def coerced_to_2d(fn, x, axis):
    """Softmax-like ops before opset 13: over every dim from `axis` on."""
    flat = x.reshape(int(np.prod(x.shape[:axis])), -1)
    return fn(flat).reshape(x.shape)


def hardmax_rows(flat):
    return np.eye(flat.shape[1], dtype=flat.dtype)[flat.argmax(axis=1)]


# Before opset 13 on an intermediate value, whose shape the model does not
# record (the version converter alone cannot rewrite these; the importer
# does), also with a dynamic batch and every old default.
case("SoftmaxOpset9Intermediate", None, {"x": fixed(f32(2, 3, 4, 5))},
     lambda x: coerced_to_2d(lambda f: softmax(f, 1), np.maximum(x, 0), 1),
     nodes=[("Relu", ["x"], {}, ["r"]), ("Softmax", ["r"], {"axis": 1})],
     opset=9)
case("LogSoftmaxOpset11Dynamic", None, {"x": batched(3, 4)},
     lambda x: coerced_to_2d(lambda f: np.log(softmax(f, 1)), np.abs(x), 1),
     nodes=[("Abs", ["x"], {}, ["a"]), ("LogSoftmax", ["a"], {})],
     opset=11, dynamic=True)
case("HardmaxOpset11Intermediate", None, {"x": fixed(f32(2, 3, 4))},
     lambda x: coerced_to_2d(hardmax_rows, -x, 1),
     nodes=[("Neg", ["x"], {}, ["n"]), ("Hardmax", ["n"], {"axis": -2})],
     opset=11)
case("SoftmaxOpset12LastAxis", None, {"x": batched(3, 4)},
     lambda x: softmax(x * 2, 2),
     inits={"two": np.array(2, np.float32)},
     nodes=[("Mul", ["x", "two"], {}, ["m"]), ("Softmax", ["m"], {"axis": 2})],
     opset=12, dynamic=True)


# ---------------------------------------------------------------- the driver

def call_ref(c, arrays):
    """The reference on the inputs and initializers it names (all of them,
    in order, when it takes positional numpy functions)."""
    values = {**arrays, **c["inits"]}
    params = inspect.signature(c["ref"]).parameters
    names = [n for n, p in params.items() if p.kind == p.POSITIONAL_OR_KEYWORD
             and p.default is p.empty]
    return c["ref"](**{n: values[n] for n in names})


def build(c, dynamic_batch):
    arrays = {k: f(2) for k, f in c["inputs"].items()}
    inits = c["inits"]
    ref = call_ref(c, arrays)
    refs = [np.asarray(r) for r in (ref if isinstance(ref, tuple) else (ref,))]
    # References computed in f64 stand for f32 outputs (except Cast's).
    refs = [r.astype(np.float32) if r.dtype == np.float64 and c["op"] != "Cast" and not c["f64"]
            else r for r in refs]
    outputs = [f"y{i}" if len(refs) > 1 else "y" for i in range(len(refs))]
    if c["nodes"] is None:
        nodes = [helper.make_node(c["op"], list(arrays) + list(inits), outputs,
                                  name=c["name"].lower(), **c["attrs"])]
    else:
        nodes = []
        for i, n in enumerate(c["nodes"]):
            op, ins, attrs = n[0], n[1], n[2]
            outs = n[3] if len(n) > 3 else outputs
            nodes.append(helper.make_node(op, ins, outs, name=f"n{i}", **attrs))
    graph_inputs = []
    for k, a in arrays.items():
        shape = list(a.shape)
        if c["dynamic"]:
            shape[0] = "N"
        graph_inputs.append(helper.make_tensor_value_info(
            k, ONNX_TYPES[a.dtype], shape))
    graph_outputs = [helper.make_tensor_value_info(
        name, ONNX_TYPES[np.asarray(r).dtype], [None] * np.asarray(r).ndim)
        for name, r in zip(outputs, refs)]
    graph = helper.make_graph(
        nodes, c["name"], graph_inputs, graph_outputs,
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", c["opset"])])
    return model, outputs


def check_loop_gradient(rlxc, rlx_run, scratch):
    """`--value-and-grad` through an imported Loop (an rlx.scan): loss =
    sum(s_4) with s_k = h * s_(k-1) + x * w, s_0 = x * zero, so
    d/dw = (1 + h + h^2 + h^3) sum_rows(x), d/dh = (1 + 2h + 3h^2) sum(x w)
    and d/dzero = h^4 sum(x), against these closed forms."""
    body = subgraph("vg", [("Mul", ["s", "half"], ["sh"], {}),
                           ("Mul", ["x", "w"], ["xw"], {}),
                           ("Add", ["sh", "xw"], ["s2"], {}),
                           ("Identity", ["cin"], ["cout"], {})],
                    [("i", I64), ("cin", BOOL), ("s", F)],
                    [("cout", BOOL), ("s2", F)])
    w, h = np.array([1.0, -2.0, 3.0], np.float32), np.float32(0.5)
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "zero"], ["s0"]),
         helper.make_node("Loop", ["m", "t", "s0"], ["s4"], body=body),
         helper.make_node("ReduceSum", ["s4"], ["loss"], keepdims=0)],
        "loop_grad", [vi("x", F, [2, 3])], [vi("loss", F, [])],
        [numpy_helper.from_array(v, k) for k, v in
         [("w", w), ("m", np.array(4, np.int64)), ("t", np.array(True)),
          ("zero", np.array(0.0, np.float32)), ("half", np.array(h))]])
    path = os.path.join(scratch, "LoopGradient.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)]), path)
    x = f32(2, 3)
    got = compile_and_run(rlxc, rlx_run, path, [{"x": x}],
                          extra=["--value-and-grad", "main"],
                          fn="main_value_and_grad")[0]
    geo = 1 + h + h * h + h ** 3
    want = {"value": geo * (x * w).sum(), "grad.w": geo * x.sum(axis=0),
            "grad.half": (1 + 2 * h + 3 * h * h) * (x * w).sum(),
            "grad.zero": h ** 4 * x.sum()}
    bad = "".join(f" {k}: {m};" for k, v in want.items()
                  if (m := close(np.asarray(v, np.float32), got[k])))
    print(("FAIL " if bad else "ok   ") + "LoopGradient (--value-and-grad)" + bad)
    return bool(bad)


def main():
    rlxc, rlx_run, scratch = sys.argv[1:4]
    only = sys.argv[4] if len(sys.argv) > 4 else ""
    os.makedirs(scratch, exist_ok=True)
    failures = []
    ran = 0
    for c in CASES:
        if only and only not in c["name"]:
            continue
        ran += 1
        model, outputs = build(c, c["dynamic"])
        path = os.path.join(scratch, c["name"] + ".onnx")
        onnx.save(model, path)
        batches = [2, 3, 1] if c["dynamic"] else [2]
        input_sets = [{k: f(b) for k, f in c["inputs"].items()} for b in batches]
        try:
            results = compile_and_run(rlxc, rlx_run, path, input_sets,
                                      extra=c["rlxc_args"])
        except Exception as e:  # noqa: BLE001
            failures.append(f"{c['name']}: {e}")
            print(f"FAIL {c['name']}: {e}")
            continue
        bad = ""
        for b, inputs, got in zip(batches, input_sets, results):
            ref = call_ref(c, inputs)
            refs = ref if isinstance(ref, tuple) else (ref,)
            for name, r in zip(outputs, refs):
                r = np.asarray(r)
                if r.dtype == np.float64 and c["op"] != "Cast" and not c["f64"]:
                    r = r.astype(np.float32)
                msg = close(r, got[name], c["rtol"], c["atol"])
                if r.dtype.kind in "iu" and got[name].dtype != r.dtype:
                    msg = f"dtype {got[name].dtype}, want {r.dtype}"
                if msg:
                    bad += f" batch {b} output {name}: {msg};"
        if bad:
            failures.append(c["name"] + ":" + bad)
            print(f"FAIL {c['name']}:{bad}")
        else:
            print(f"ok   {c['name']}" + (" (dynamic batch 2, 3, 1)" if c["dynamic"] else ""))
    if not only or only in "LoopGradient":
        try:
            if check_loop_gradient(rlxc, rlx_run, scratch):
                failures.append("LoopGradient")
        except Exception as e:  # noqa: BLE001
            print(f"FAIL LoopGradient: {e}")
            failures.append("LoopGradient")
        ran += 1
    print(f"{ran - len(failures)} of {ran} cases passed")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
