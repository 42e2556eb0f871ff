"""A model of bf16 and int8 matmuls shaped for the AMX tiles of
rlx-cpu-dot-product-matmul (16-row tiles in pairs and alone, rows beyond
them, whole k tiles and a k tail, whole 32-column panels and a partial
one), its weights, inputs, and its reference as plain loops (no numpy:
lit's python3 may lack it).

    amx_matmuls.py model static|dyn|alldyn      prints the rlx MLIR
    amx_matmuls.py weights FILE                 writes the weights
    amx_matmuls.py inputs DIR BATCH ROWS SEED   writes the inputs into DIR
    amx_matmuls.py check DIR OUT.safetensors

Outputs: y1, x1 (rounded to bf16) times the bf16 weight wb [96, 80]: three
whole k tiles, two whole panels and half of one; y2, x2 times b2, both
activations rounded to bf16 (B packed at every call), k = 77: two whole
tiles and a tail of 13 (an odd one: a half group); y3, the i8 x1i times
the i8 weight w8 [130, 64]: two whole k tiles and a tail of 2 (half a
group); y4, x2i times the i8 activation b8 [64, 40]: one k tile, a partial
panel. bf16 values are multiples of 1/16 below 8 in magnitude (every
product and sum exact in f32); i8 values span [-128, 127]. Every output
is compared exactly.
"""
import random
import struct
import sys

from npy_f32 import check_exact, read_npy_f32, read_safetensors, write_npy, write_safetensors
from packed_weights import bf16_bits, bf16_value, int8s, read_npy_i8
from plain_loops import matmul

K1, N1 = 96, 80   # wb
K2, N2 = 77, 64   # b2
K3, N3 = 130, 64  # w8
K4, N4 = 64, 40   # b8


def model(mode):
    lead = {"static": "2x57x", "dyn": "?x20x", "alldyn": "?x?x"}[mode]
    ins = [("x1", K1, "f32"), ("x2", K2, "f32"), ("x1i", K3, "i8"), ("x2i", K4, "i8")]
    args = ", ".join('%%%s: tensor<%s%dx%s> {rlx.name = "%s"}' % (n, lead, k, t, n) for n, k, t in ins)
    args += ', %%b2: tensor<%dx%dxf32> {rlx.name = "b2"}, %%b8: tensor<%dx%dxi8> {rlx.name = "b8"}' % (
        K2, N2, K4, N4)
    outs = [("y1", N1, "f32"), ("y2", N2, "f32"), ("y3", N3, "i32"), ("y4", N4, "i32")]
    results = ", ".join('tensor<%s%dx%s> {rlx.name = "%s"}' % (lead, n, t, name) for name, n, t in outs)
    print("func.func @f(%s) -> (%s) {" % (args, results))
    print('  %%wb = rlx.param "wb" : tensor<%dx%dxbf16>' % (K1, N1))
    print('  %%w8 = rlx.param "w8" : tensor<%dx%dxi8>' % (K3, N3))
    for name, k in (("x1", K1), ("x2", K2)):
        t = "%s%d" % (lead, k)
        print('  %%%sb = rlx.cast %%%s : tensor<%sxf32> -> tensor<%sxbf16>' % (name, name, t, t))
        print('  %%%sw = rlx.cast %%%sb : tensor<%sxbf16> -> tensor<%sxf32>' % (name, name, t, t))
    print('  %%wbw = rlx.cast %%wb : tensor<%dx%dxbf16> -> tensor<%dx%dxf32>' % (K1, N1, K1, N1))
    print('  %%b2b = rlx.cast %%b2 : tensor<%dx%dxf32> -> tensor<%dx%dxbf16>' % (K2, N2, K2, N2))
    print('  %%b2w = rlx.cast %%b2b : tensor<%dx%dxbf16> -> tensor<%dx%dxf32>' % (K2, N2, K2, N2))
    mm = '  %%%s = rlx.matmul %%%s, %%%s : (tensor<%s%dx%s>, tensor<%dx%dx%s>) -> tensor<%s%dx%s>'
    print(mm % ("y1", "x1w", "wbw", lead, K1, "f32", K1, N1, "f32", lead, N1, "f32"))
    print(mm % ("y2", "x2w", "b2w", lead, K2, "f32", K2, N2, "f32", lead, N2, "f32"))
    print(mm % ("y3", "x1i", "w8", lead, K3, "i8", K3, N3, "i8", lead, N3, "i32"))
    print(mm % ("y4", "x2i", "b8", lead, K4, "i8", K4, N4, "i8", lead, N4, "i32"))
    print("  return %%y1, %%y2, %%y3, %%y4 : %s\n}" % ", ".join(
        "tensor<%s%dx%s>" % (lead, n, t) for _, n, t in outs))


def bf16s(rng, count):
    return [rng.randint(-127, 127) / 16 for _ in range(count)]


def weights():
    rng = random.Random(5)
    return {
        "wb": ("BF16", [K1, N1], [bf16_bits(v) for v in bf16s(rng, K1 * N1)]),
        "w8": ("I8", [K3, N3], int8s(rng, K3 * N3)),
    }


def write_inputs(folder, batch, rows, seed):
    rng = random.Random(seed)
    m = batch * rows
    write_npy(folder + "/x1.npy", "<f4", [batch, rows, K1], bf16s(rng, m * K1))
    write_npy(folder + "/x2.npy", "<f4", [batch, rows, K2], bf16s(rng, m * K2))
    write_npy(folder + "/x1i.npy", "|i1", [batch, rows, K3], int8s(rng, m * K3))
    write_npy(folder + "/x2i.npy", "|i1", [batch, rows, K4], int8s(rng, m * K4))
    write_npy(folder + "/b2.npy", "<f4", [K2, N2], bf16s(rng, K2 * N2))
    write_npy(folder + "/b8.npy", "|i1", [K4, N4], int8s(rng, K4 * N4))


def check(folder, out_path):
    w = {name: values for name, (_, _, values) in weights().items()}
    got = {name: values for name, (_, _, values) in read_safetensors(out_path).items()}
    read = lambda name: read_npy_f32(folder + "/" + name + ".npy")
    read8 = lambda name: read_npy_i8(folder + "/" + name + ".npy")
    want = {
        "y1": matmul(read("x1"), [bf16_value(b) for b in w["wb"]], K1, N1),
        "y2": matmul(read("x2"), read("b2"), K2, N2),
        "y3": matmul(read8("x1i"), w["w8"], K3, N3),
        "y4": matmul(read8("x2i"), read8("b8"), K4, N4),
    }
    check_exact("amx matmuls", got, want)


COMMANDS = {
    "model": lambda args: model(args[0]),
    "weights": lambda args: write_safetensors(args[0], weights()),
    "inputs": lambda args: write_inputs(args[0], *[int(a) for a in args[1:4]]),
    "check": lambda args: check(args[0], args[1]),
}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    COMMANDS[sys.argv[1]](sys.argv[2:])
