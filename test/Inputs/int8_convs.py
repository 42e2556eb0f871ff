"""Three convolutions quantized to int8 (rlxc --quantize=int8), one per
lowering of rlx.conv2d: a 3x3 stride-2 padded conv (im2col), a depthwise
3x3 (grouped: one generic contraction) and a 1x1 (pointwise), with their
weights, inputs and the quantization scheme written out as plain loops in
f32 arithmetic; no numpy (lit's python3 may lack it).

    int8_convs.py model static|dyn|alldyn    prints the rlx MLIR (NHWC)
    int8_convs.py weights FILE
    int8_convs.py input FILE N,H,W SEED      writes x: [N, H, W, 3]
    int8_convs.py check X.npy OUT.safetensors [CALIBRATION.npy]

y = conv1x1(dwconv3x3(relu(conv3x3/2(x) + b1))). Inputs and weights are
small multiples of powers of two, so the f32 model calibration runs is
exact and the calibrated ranges are known exactly.
"""
import struct
import sys

from int8_matmuls import code, compare, f32, read_safetensors, scale, write_input
from npy_f32 import read_npy_f32, write_safetensors_f32

C, F1, F3 = 3, 4, 5
SHAPES = {"w1": [3, 3, C, F1], "b1": [F1], "w2": [3, 3, 1, F1], "w3": [1, 1, F1, F3]}


def model(mode):
    x = {"static": "2x7x6", "dyn": "?x7x6", "alldyn": "?x?x?"}[mode]
    h = {"static": "2x4x3", "dyn": "?x4x3", "alldyn": "?x?x?"}[mode]
    t = lambda dims, c: "tensor<%sx%dxf32>" % (dims, c)
    w = lambda name: "tensor<%sxf32>" % "x".join(map(str, SHAPES[name]))
    print('func.func @f(%%x: %s {rlx.name = "x"}) -> (%s {rlx.name = "y"}) {' % (t(x, C), t(h, F3)))
    for name in SHAPES:
        print('  %%%s = rlx.param "%s" : %s' % (name, name, w(name)))
    print("  %%c1 = rlx.conv2d %%x, %%w1 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}"
          " : (%s, %s) -> %s" % (t(x, C), w("w1"), t(h, F1)))
    print("  %%a1 = rlx.add %%c1, %%b1 : (%s, %s) -> %s" % (t(h, F1), w("b1"), t(h, F1)))
    print("  %%r1 = rlx.relu %%a1 : %s" % t(h, F1))
    print("  %%c2 = rlx.conv2d %%r1, %%w2 {groups = %d : i64, padding = array<i64: 1, 1, 1, 1>}"
          " : (%s, %s) -> %s" % (F1, t(h, F1), w("w2"), t(h, F1)))
    print("  %%y = rlx.conv2d %%c2, %%w3 : (%s, %s) -> %s" % (t(h, F1), w("w3"), t(h, F3)))
    print("  return %%y : %s\n}" % t(h, F3))


def weights():
    import random
    rng = random.Random(11)
    out = {}
    for name, shape in SHAPES.items():
        count = 1
        for d in shape:
            count *= d
        out[name] = (shape, [rng.randint(-12, 12) / 8 for _ in range(count)])
    return out


def write_weights(path):
    write_safetensors_f32(path, weights())


def conv(x, shape, w, wshape, stride, pad, groups):
    """NHWC x (nested lists) by HWIO w (flat), zero padded; returns the
    result (nested lists) and its shape."""
    n_, h, wd, c = shape
    kh, kw, cg, f = wshape
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    fg = f // groups
    y = [[[[0] * f for _ in range(ow)] for _ in range(oh)] for _ in range(n_)]
    for n in range(n_):
        for i in range(oh):
            for j in range(ow):
                for o in range(f):
                    g = o // fg
                    acc = 0
                    for a in range(kh):
                        for b in range(kw):
                            r, s = i * stride + a - pad, j * stride + b - pad
                            if 0 <= r < h and 0 <= s < wd:
                                for k in range(cg):
                                    acc += x[n][r][s][g * cg + k] * \
                                        w[((a * kw + b) * cg + k) * f + o]
                    y[n][i][j][o] = acc
    return y, [n_, oh, ow, f]


def flat(t):
    return [v for a in t for b in a for c in b for v in c]


def nest(values, shape):
    n, h, w, c = shape
    return [[[[values[((i * h + j) * w + k) * c + m] for m in range(c)]
              for k in range(w)] for j in range(h)] for i in range(n)]


def apply(t, fn):
    return [[[[fn(v, m) for m, v in enumerate(c)] for c in b] for b in a] for a in t]


LAYERS = [("w1", 2, 1, 1), ("w2", 1, 1, F1), ("w3", 1, 0, 1)]


def f32_model(x, shape, ws):
    """The exact f32 activations entering each conv."""
    acts, cur, cur_shape = [], x, shape
    for index, (name, stride, pad, groups) in enumerate(LAYERS):
        acts.append(cur)
        cur, cur_shape = conv(cur, cur_shape, ws[name][1], SHAPES[name], stride, pad, groups)
        if index == 0:
            cur = apply(cur, lambda v, m: max(v + ws["b1"][1][m], 0.0))
    return acts


def int8_model(x, shape, ws, absmax):
    cur, cur_shape = x, shape
    for index, (name, stride, pad, groups) in enumerate(LAYERS):
        wshape, w = SHAPES[name], ws[name][1]
        f = wshape[3]
        per = len(w) // f
        sw = [scale(max(abs(w[i * f + o]) for i in range(per))) for o in range(f)]
        qw = [code(w[i], sw[i % f]) for i in range(len(w))]
        a = absmax[index] if absmax else max(abs(v) for v in flat(cur))
        sx = scale(a)
        qx = apply(cur, lambda v, m: code(v, sx))
        acc, cur_shape = conv(qx, cur_shape, qw, wshape, stride, pad, groups)
        both = [f32(sx * s) for s in sw]
        cur = apply(acc, lambda v, m: f32(float(v) * both[m]))
        if index == 0:
            cur = apply(cur, lambda v, m: max(f32(v + ws["b1"][1][m]), 0.0))
    return flat(cur)


def read_x(path):
    with open(path, "rb") as f:
        data = f.read()
    header = data[10:10 + struct.unpack("<H", data[8:10])[0]].decode()
    dims = [int(d) for d in header.split("(")[1].split(")")[0].split(",") if d.strip()]
    return nest(read_npy_f32(path), dims), dims


def check(x_path, out_path, *calibration_paths):
    ws = weights()
    x, shape = read_x(x_path)
    absmax = None
    if calibration_paths:
        absmax = [0.0] * len(LAYERS)
        for path in calibration_paths:
            cx, cshape = read_x(path)
            for i, act in enumerate(f32_model(cx, cshape, ws)):
                absmax[i] = max(absmax[i], max(abs(v) for v in flat(act)))
    want = int8_model(x, shape, ws, absmax)
    acts = f32_model(x, shape, ws)
    exact, _ = conv(acts[2], [shape[0], len(acts[2][0]), len(acts[2][0][0]), F1],
                    ws["w3"][1], SHAPES["w3"], 1, 0, 1)
    compare(read_safetensors(out_path), want, flat(exact))

if __name__ == "__main__":
    if sys.argv[1] == "model":
        model(sys.argv[2])
    elif sys.argv[1] == "weights":
        write_weights(sys.argv[2])
    elif sys.argv[1] == "input":
        dims = [int(d) for d in sys.argv[3].split(",")] + [C]
        write_input(sys.argv[2], dims, int(sys.argv[4]))
    else:
        check(*sys.argv[2:])
