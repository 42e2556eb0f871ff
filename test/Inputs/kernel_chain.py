"""A model of many kernels, and its reference computed by plain loops.

    kernel_chain.py model STEPS          prints the rlx MLIR
    kernel_chain.py check STEPS X.npy Y.npy   compares rlx-run's output

Each step is v = softmax(v, axis 1) * x + x over x: f32[4, 16] (three
kernels: two reductions and the elementwise rest), so STEPS = 40 gives a
function of over a hundred loop nests. The reference runs in f64 with no
numpy (lit's python3 may lack it).
"""
import math
import struct
import sys

from npy_f32 import read_npy_f32

ROWS, COLS = 4, 16


def model(steps):
    t = "tensor<4x16xf32>"
    print('func.func @chain(%x: ' + t + ' {rlx.name = "x"}) -> (' + t +
          ' {rlx.name = "y"}) {')
    prev = "%x"
    for i in range(steps):
        print("  %%s%d = rlx.softmax %s {axis = 1 : i64} : %s" % (i, prev, t))
        print("  %%m%d = rlx.mul %%s%d, %%x : (%s, %s) -> %s" % (i, i, t, t, t))
        print("  %%v%d = rlx.add %%m%d, %%x : (%s, %s) -> %s" % (i, i, t, t, t))
        prev = "%%v%d" % i
    print("  return %s : %s\n}" % (prev, t))


def reference(steps, flat_x):
    x = [list(flat_x[r * COLS:(r + 1) * COLS]) for r in range(ROWS)]
    v = [row[:] for row in x]
    for _ in range(steps):
        for r in range(ROWS):
            top = max(v[r])
            e = [math.exp(a - top) for a in v[r]]
            s = sum(e)
            v[r] = [e[c] / s * x[r][c] + x[r][c] for c in range(COLS)]
    return v


def check(steps, x_path, y_path):
    got = read_npy_f32(y_path)
    want = [a for row in reference(steps, read_npy_f32(x_path)) for a in row]
    assert len(got) == len(want), "got %d values" % len(got)
    worst = max(abs(g - w) / max(1.0, abs(w)) for g, w in zip(got, want))
    # f32 over a few hundred ops: well within 1e-4 relative.
    print("max relative error %.3g" % worst)
    sys.exit(0 if worst < 1e-4 else 1)


if __name__ == "__main__":
    if sys.argv[1] == "model":
        model(int(sys.argv[2]))
    else:
        check(int(sys.argv[2]), sys.argv[3], sys.argv[4])
