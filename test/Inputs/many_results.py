"""An entry point of many results and many prepared weights, its weights,
and its reference computed by plain loops.

    many_results.py model N            prints the rlx MLIR
    many_results.py weights N FILE     writes the weights (safetensors)
    many_results.py check N X.npy OUT.safetensors   compares rlx-run's outputs

Output i is y_i = x + w_i * w_i over x, w_i: f32[2, 3]; w_i * w_i depends on
the weights alone, so the prepare entry point returns N values too. No numpy
(lit's python3 may lack it).
"""
import sys

from npy_f32 import read_npy_f32, write_safetensors_f32
from npy_f32 import read_safetensors as read_safetensors_typed

SHAPE = (2, 3)
COUNT = SHAPE[0] * SHAPE[1]


def model(n):
    t = "tensor<2x3xf32>"
    results = ", ".join('%s {rlx.name = "y%d"}' % (t, i) for i in range(n))
    print('func.func @f(%%x: %s {rlx.name = "x"}) -> (%s) {' % (t, results))
    for i in range(n):
        print('  %%w%d = rlx.param "w%d" : %s' % (i, i, t))
        print("  %%s%d = rlx.mul %%w%d, %%w%d : (%s, %s) -> %s" % (i, i, i, t, t, t))
        print("  %%y%d = rlx.add %%x, %%s%d : (%s, %s) -> %s" % (i, i, t, t, t))
    print("  return %s : %s\n}" % (", ".join("%%y%d" % i for i in range(n)),
                                   ", ".join([t] * n)))


def weight(i, k):
    return 0.25 * (i + 1) - 0.125 * k


def write_weights(n, path):
    write_safetensors_f32(path, {"w%d" % i: (SHAPE, [weight(i, k) for k in range(COUNT)])
                                 for i in range(n)})


def read_safetensors(path):
    return {name: values for name, (_, _, values) in read_safetensors_typed(path).items()}


def check(n, x_path, out_path):
    x = read_npy_f32(x_path)
    got = read_safetensors(out_path)
    assert len(got) == n, "got %d outputs" % len(got)
    for i in range(n):
        want = [x[k] + weight(i, k) ** 2 for k in range(COUNT)]
        values = got["y%d" % i]
        assert len(values) == COUNT, "y%d has %d values" % (i, len(values))
        for g, w in zip(values, want):
            assert abs(g - w) <= 1e-6 * max(1.0, abs(w)), "y%d: %r != %r" % (i, g, w)
    print("%d outputs match" % n)


if __name__ == "__main__":
    n = int(sys.argv[2])
    if sys.argv[1] == "model":
        model(n)
    elif sys.argv[1] == "weights":
        write_weights(n, sys.argv[3])
    else:
        check(n, sys.argv[3], sys.argv[4])
