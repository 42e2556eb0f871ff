"""Two dense layers quantized to int8 (rlxc --quantize=int8), their weights,
inputs, and their reference: the quantization scheme written out as plain
loops in f32 arithmetic (each operation rounded to f32, as the compiled code
does), no numpy (lit's python3 may lack it).

    int8_matmuls.py model static|dyn|alldyn   prints the rlx MLIR
    int8_matmuls.py weights FILE               writes the weights
    int8_matmuls.py input FILE SHAPE SEED      writes an input (.npy), SHAPE
                                               like 2,3,37
    int8_matmuls.py check X.npy OUT.safetensors [CALIBRATION.npy...]
    int8_matmuls.py outlier FILE SHAPE SEED    an input with one value 16
                                               times the others' bound
    int8_matmuls.py check-percentile P X.npy OUT.safetensors CALIBRATION.npy...
                                               ranges from the P-th
                                               percentile of |activation|

The model is y = relu(x @ w1 + b1) @ w2, x: [..., 37]. Inputs and weights
are small multiples of powers of two, so the f32 model that calibration
runs is exact whatever its summation order and the calibrated ranges are
known exactly. Without a calibration file the reference measures each
activation's range per call (dynamic quantization).
"""
import random
import struct
import sys

from npy_f32 import read_npy_f32, write_npy, write_safetensors_f32
from npy_f32 import read_safetensors as read_safetensors_typed

K, N1, N2 = 37, 19, 7
FLT_MIN = 1.1754943508222875e-38


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def model(mode):
    x = {"static": "5x%d" % K, "dyn": "?x%d" % K, "alldyn": "?x?x%d" % K}[mode]
    lead = x[: -len(str(K))]
    h, y = "tensor<%s%d" % (lead, N1) + "xf32>", "tensor<%s%d" % (lead, N2) + "xf32>"
    print('func.func @f(%%x: tensor<%sxf32> {rlx.name = "x"}) -> (%s {rlx.name = "y"}) {' % (x, y))
    print('  %%w1 = rlx.param "w1" : tensor<%dx%dxf32>' % (K, N1))
    print('  %%b1 = rlx.param "b1" : tensor<%dxf32>' % N1)
    print('  %%w2 = rlx.param "w2" : tensor<%dx%dxf32>' % (N1, N2))
    print("  %%p = rlx.matmul %%x, %%w1 : (tensor<%sxf32>, tensor<%dx%dxf32>) -> %s" % (x, K, N1, h))
    print("  %%q = rlx.add %%p, %%b1 : (%s, tensor<%dxf32>) -> %s" % (h, N1, h))
    print("  %%r = rlx.relu %%q : %s" % h)
    print("  %%y = rlx.matmul %%r, %%w2 : (%s, tensor<%dx%dxf32>) -> %s" % (h, N1, N2, y))
    print("  return %%y : %s\n}" % y)


def weights():
    rng = random.Random(7)
    w1 = [rng.randint(-24, 24) / 16 for _ in range(K * N1)]
    # Column 5 all zeros: a zero scale must not give NaNs.
    for k in range(K):
        w1[k * N1 + 5] = 0.0
    b1 = [rng.randint(-8, 8) / 4 for _ in range(N1)]
    w2 = [rng.randint(-16, 16) / 8 for _ in range(N1 * N2)]
    return {"w1": ([K, N1], w1), "b1": ([N1], b1), "w2": ([N1, N2], w2)}


def write_weights(path):
    write_safetensors_f32(path, weights())


def write_input(path, shape, seed):
    rng = random.Random(seed)
    count = 1
    for d in shape:
        count *= d
    write_npy(path, "<f4", shape, [rng.randint(-40, 40) / 8 for _ in range(count)])


def write_outlier(path, shape, seed):
    rng = random.Random(seed)
    count = 1
    for d in shape:
        count *= d
    values = [rng.randint(-40, 40) / 8 for _ in range(count)]
    values[rng.randrange(count)] = 80.0
    write_npy(path, "<f4", shape, values)


BINS = 2048


def percentile_range(values, p):
    """The P-th percentile of |values| as rlxc's percentile calibrator
    takes it: a histogram of BINS bins over [0, max], the upper edge of the
    first bin where the cumulative count reaches P% of the values."""
    magnitudes = [abs(v) for v in values]
    top = max(magnitudes)
    counts = [0] * BINS
    for v in magnitudes:
        b = int(v / top * BINS) if top > 0 else 0
        counts[min(max(b, 0), BINS - 1)] += 1
    wanted = p / 100 * len(magnitudes)
    cumulative = 0
    for i, c in enumerate(counts):
        cumulative += c
        if cumulative >= wanted:
            return top * (i + 1) / BINS
    return top


def read_safetensors(path):
    """The values of the file's one tensor."""
    return list(read_safetensors_typed(path).values())[0][2]


def scale(absmax):
    return max(f32(absmax / 127), FLT_MIN)


def code(v, s):
    # Round half to even (Python's round), then clamp: the compiled code
    # clamps first, which is the same for these magnitudes.
    return max(-127, min(127, round(f32(v / s))))


def dense(rows, w, n, x_absmax, bias=None):
    """rows @ w in int8 with the activation scale of x_absmax; f32 out."""
    sx = scale(x_absmax)
    sw = [scale(max(abs(w[k * n + j]) for k in range(len(rows[0])))) for j in range(n)]
    both = [f32(sx * s) for s in sw]
    qw = [[code(w[k * n + j], sw[j]) for j in range(n)] for k in range(len(rows[0]))]
    out = []
    for row in rows:
        qx = [code(v, sx) for v in row]
        acc = [sum(qx[k] * qw[k][j] for k in range(len(row))) for j in range(n)]
        y = [f32(float(a) * b) for a, b in zip(acc, both)]
        if bias is not None:
            y = [max(f32(v + b), 0.0) for v, b in zip(y, bias)]
        out.append(y)
    return out


def exact_hidden(rows, ws):
    """relu(x @ w1 + b1) of the f32 model (exact for these values)."""
    (_, w1), (_, b1) = ws["w1"], ws["b1"]
    return [[max(sum(r[k] * w1[k * N1 + j] for k in range(K)) + b1[j], 0.0)
             for j in range(N1)] for r in rows]


def check(x_path, out_path, *calibration_paths, percentile=None):
    ws = weights()
    x = read_npy_f32(x_path)
    rows = [x[i:i + K] for i in range(0, len(x), K)]
    if calibration_paths:
        c = [v for path in calibration_paths for v in read_npy_f32(path)]
        crows = [c[i:i + K] for i in range(0, len(c), K)]
        hidden = [v for h in exact_hidden(crows, ws) for v in h]
        if percentile is None:
            a1 = max(abs(v) for v in c)
            a2 = max(hidden)
        else:
            a1 = percentile_range(c, percentile)
            a2 = percentile_range(hidden, percentile)
            # The percentile clips the outlier: the ranges are not the maxima.
            assert a1 < max(abs(v) for v in c) and a2 < max(hidden), (a1, a2)
    else:
        a1 = max(abs(v) for v in x)
        a2 = None
    h = dense(rows, ws["w1"][1], N1, a1, ws["b1"][1])
    if a2 is None:
        a2 = max(max(r) for r in h)
    want = [v for r in dense(h, ws["w2"][1], N2, a2) for v in r]
    exact = [sum(r[k] * ws["w2"][1][k * N2 + j] for k in range(N1))
             for r in exact_hidden(rows, ws) for j in range(N2)]
    compare(read_safetensors(out_path), want, exact)


def compare(got, want, exact):
    """rlx's outputs against the int8 reference, and the reference against
    the exact f32 model: int8 is used (they differ), and used sensibly."""
    assert len(got) == len(want), "got %d values, want %d" % (len(got), len(want))
    worst = max(abs(g - w) / max(1.0, abs(w)) for g, w in zip(got, want))
    assert worst <= 1e-5, "largest relative difference %g" % worst
    top = max(abs(v) for v in exact)
    error = max(abs(g - e) for g, e in zip(got, exact))
    assert 0 < error <= 0.05 * top, "int8 error %g against %g" % (error, top)
    print("%d values match the int8 reference (f32 model within %.2g%%)" % (
        len(want), 100 * error / top))


if __name__ == "__main__":
    if sys.argv[1] == "model":
        model(sys.argv[2])
    elif sys.argv[1] == "weights":
        write_weights(sys.argv[2])
    elif sys.argv[1] == "input":
        write_input(sys.argv[2], [int(d) for d in sys.argv[3].split(",")], int(sys.argv[4]))
    elif sys.argv[1] == "outlier":
        write_outlier(sys.argv[2], [int(d) for d in sys.argv[3].split(",")], int(sys.argv[4]))
    elif sys.argv[1] == "check-percentile":
        check(*sys.argv[3:], percentile=float(sys.argv[2]))
    else:
        check(*sys.argv[2:])
