"""Filter gradients of padded 3x3 convs (rlx.vjp with respect to the
filter), which the CPU takes over output rows, every tap per row
(rlx-cpu-filter-gradient-rows), their inputs, and their reference as plain
loops (no numpy: lit's python3 may lack it).

    filter_gradients.py model static|dyn   prints the rlx MLIR
    filter_gradients.py inputs DIR BATCH SEED
                                           writes x1, w1, g1, x2, w2 and g2
                                           (.npy) into DIR
    filter_gradients.py check DIR OUT.safetensors

Outputs: dw1, the filter gradient of conv3x3(x1, w1, padding 1) for the
output gradient g1, x1 [B, 18, 18, 16], w1 [3, 3, 16, 24] (rows of 18
pixels); dw2, that of conv3x3(x2, w2, stride 2, padding 1), x2
[B, 34, 34, 16], w2 [3, 3, 16, 32], g2 [B, 17, 17, 32] (each tap's row a
strided view); dw3, that of the 1x1 conv(x1, w3), w3 [1, 1, 16, 24], for
its own g3 (one product, its sums small enough for the rows; with g1 it
would be a tenth tap of dw1's loop). With a dynamic
batch the per-tap products run instead.
Values are multiples of 1/16 below 1: every product and sum is exact in
f32, so outputs are compared exactly.
"""
import random
import sys

from npy_f32 import check_exact, read_npy_f32, read_safetensors, write_npy

H1, H2, C, F1, F2 = 18, 34, 16, 24, 32
O2 = (H2 + 2 - 3) // 2 + 1


def model(mode):
    n = {"static": "2", "dyn": "?"}[mode]
    x1, x2 = "%sx%dx%dx%d" % (n, H1, H1, C), "%sx%dx%dx%d" % (n, H2, H2, C)
    g1, g2 = "%sx%dx%dx%d" % (n, H1, H1, F1), "%sx%dx%dx%d" % (n, O2, O2, F2)
    w1, w2 = "3x3x%dx%d" % (C, F1), "3x3x%dx%d" % (C, F2)
    w3 = "1x1x%dx%d" % (C, F1)
    for name, x, w, y, s, p in (("c1", x1, w1, g1, 1, 1), ("c2", x2, w2, g2, 2, 1),
                                ("c3", x1, w3, g1, 1, 0)):
        print("func.func private @%s(%%x: tensor<%sxf32>, %%w: tensor<%sxf32>) -> tensor<%sxf32> {"
              % (name, x, w, y))
        print("  %%y = rlx.conv2d %%x, %%w {strides = array<i64: %d, %d>, padding = array<i64: %d, %d, %d, %d>}"
              " : (tensor<%sxf32>, tensor<%sxf32>) -> tensor<%sxf32>" % (s, s, p, p, p, p, x, w, y))
        print("  return %%y : tensor<%sxf32>\n}" % y)
    print('func.func @dw(%%x1: tensor<%sxf32> {rlx.name = "x1"}, %%w1: tensor<%sxf32> {rlx.name = "w1"}, '
          '%%g1: tensor<%sxf32> {rlx.name = "g1"}, %%x2: tensor<%sxf32> {rlx.name = "x2"}, '
          '%%w2: tensor<%sxf32> {rlx.name = "w2"}, %%g2: tensor<%sxf32> {rlx.name = "g2"}, '
          '%%w3: tensor<%sxf32> {rlx.name = "w3"}, %%g3: tensor<%sxf32> {rlx.name = "g3"}) -> '
          '(tensor<%sxf32> {rlx.name = "dw1"}, tensor<%sxf32> {rlx.name = "dw2"}, '
          'tensor<%sxf32> {rlx.name = "dw3"}) {'
          % (x1, w1, g1, x2, w2, g2, w3, g1, w1, w2, w3))
    for i, (name, xi, wi, gi, x, w, y) in enumerate(
            (("c1", 1, 1, 1, x1, w1, g1), ("c2", 2, 2, 2, x2, w2, g2), ("c3", 1, 3, 3, x1, w3, g1)), 1):
        print("  %%r%d:2 = rlx.vjp @%s(%%x%d, %%w%d) cotangents(%%g%d) {wrt = array<i64: 1>} : "
              "(tensor<%sxf32>, tensor<%sxf32>, tensor<%sxf32>) -> (tensor<%sxf32>, tensor<%sxf32>)"
              % (i, name, xi, wi, gi, x, w, y, y, w))
    print("  return %%r1#1, %%r2#1, %%r3#1 : tensor<%sxf32>, tensor<%sxf32>, tensor<%sxf32>\n}" % (w1, w2, w3))


def fractions(rng, count):
    return [rng.randint(-15, 15) / 16 for _ in range(count)]


def write_inputs(folder, batch, seed):
    rng = random.Random(seed)
    for name, shape in (("x1", [batch, H1, H1, C]), ("w1", [3, 3, C, F1]),
                        ("g1", [batch, H1, H1, F1]), ("x2", [batch, H2, H2, C]),
                        ("w2", [3, 3, C, F2]), ("g2", [batch, O2, O2, F2]),
                        ("w3", [1, 1, C, F1]), ("g3", [batch, H1, H1, F1])):
        count = 1
        for d in shape:
            count *= d
        write_npy("%s/%s.npy" % (folder, name), "<f4", shape, fractions(rng, count))


def filter_gradient(x, g, batch, h, o, f, stride, window=3, pad=1):
    """dw[i, j, c, k] = sum over images and output pixels of the padded
    input at the pixel tap (i, j) reads times g at that output pixel."""
    dw = [0.0] * (window * window * C * f)
    for b in range(batch):
        for y in range(o):
            for xx in range(o):
                grow = ((b * o + y) * o + xx) * f
                for i in range(window):
                    for j in range(window):
                        yy, xi = y * stride + i - pad, xx * stride + j - pad
                        if not (0 <= yy < h and 0 <= xi < h):
                            continue
                        base = ((b * h + yy) * h + xi) * C
                        for c in range(C):
                            v = x[base + c]
                            if v == 0:
                                continue
                            out = ((i * window + j) * C + c) * f
                            for k in range(f):
                                dw[out + k] += v * g[grow + k]
    return dw


def check(folder, out_path):
    x1, x2 = read_npy_f32(folder + "/x1.npy"), read_npy_f32(folder + "/x2.npy")
    batch = len(x1) // (H1 * H1 * C)
    want = {
        "dw1": filter_gradient(x1, read_npy_f32(folder + "/g1.npy"), batch, H1, H1, F1, 1),
        "dw2": filter_gradient(x2, read_npy_f32(folder + "/g2.npy"), batch, H2, O2, F2, 2),
        "dw3": filter_gradient(x1, read_npy_f32(folder + "/g3.npy"), batch, H1, H1, F1, 1, 1, 0),
    }
    got = {name: values for name, (_, _, values) in read_safetensors(out_path).items()}
    check_exact("filter gradients", got, want)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "model":
        model(sys.argv[2])
    elif command == "inputs":
        write_inputs(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        check(sys.argv[2], sys.argv[3])
