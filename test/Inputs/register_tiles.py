"""Products by the CPU's matmul kernel whatever its register tile (8 x 32 on
AVX-512, 6 x 16 on AVX2), with inputs and a plain-loop reference (no numpy:
lit's python3 may lack it).

    register_tiles.py model static|dyn   prints the rlx MLIR
    register_tiles.py inputs DIR ROWS SEED writes a.npy, b.npy, x.npy, w.npy
    register_tiles.py check DIR OUT.safetensors

y = a b: b is 1024 x 528 (2.1 MiB: copied into column panels at each call;
528 columns are whole 16-column tiles but not whole 32-column ones), a has
ROWS rows (static: 14, two whole 6-row tiles, packed, and 2 rows read in
place). z = x w: 7 x
13 by 13 x 24, partial tiles in both dims. Values are multiples of 1/16
below 1: every product and sum is exact in f32, so outputs compare exactly.

    register_tiles.py tall-model          prints the tall tiles' rlx MLIR
    register_tiles.py tall-inputs DIR SEED writes a.npy, x.npy, b.npy
    register_tiles.py tall-check DIR OUT.safetensors

The tall register tiles of AVX-512 (14 rows, for a product whose one block
of A is read in place while B's panels stream from L2): y = a b and z = x b,
b 384 x 352 (528 KiB: packed at each call, three K blocks of 128), a 49
rows (three tall tiles and a masked 8-row tile of 7), x 30 rows (two tall
tiles and two rows of interleaved sums), both into zero fills.
"""
import random
import sys

from npy_f32 import check_exact, read_npy_f32, read_safetensors, write_npy
from plain_loops import matmul

K, N = 1024, 528
XK, XN, XROWS = 13, 24, 7


def model(mode):
    rows = {"static": "14", "dyn": "?"}[mode]
    xrows = {"static": str(XROWS), "dyn": "?"}[mode]
    a, b = "tensor<%sx%dxf32>" % (rows, K), "tensor<%dx%dxf32>" % (K, N)
    y = "tensor<%sx%dxf32>" % (rows, N)
    x, w = "tensor<%sx%dxf32>" % (xrows, XK), "tensor<%dx%dxf32>" % (XK, XN)
    z = "tensor<%sx%dxf32>" % (xrows, XN)
    print('func.func @f(%%a: %s {rlx.name = "a"}, %%b: %s {rlx.name = "b"}, '
          '%%x: %s {rlx.name = "x"}, %%w: %s {rlx.name = "w"}) -> '
          '(%s {rlx.name = "y"}, %s {rlx.name = "z"}) {' % (a, b, x, w, y, z))
    print("  %%y = rlx.matmul %%a, %%b : (%s, %s) -> %s" % (a, b, y))
    print("  %%z = rlx.matmul %%x, %%w : (%s, %s) -> %s" % (x, w, z))
    print("  return %%y, %%z : %s, %s" % (y, z))
    print("}")


TALL_K, TALL_N, TALL_ROWS = 384, 352, {"a": 49, "x": 30}


def tall_model():
    b = "tensor<%dx%dxf32>" % (TALL_K, TALL_N)
    a, x = ("tensor<%dx%dxf32>" % (TALL_ROWS[n], TALL_K) for n in "ax")
    y, z = ("tensor<%dx%dxf32>" % (TALL_ROWS[n], TALL_N) for n in "ax")
    print('func.func @f(%%a: %s {rlx.name = "a"}, %%x: %s {rlx.name = "x"}, '
          '%%b: %s {rlx.name = "b"}) -> (%s {rlx.name = "y"}, '
          '%s {rlx.name = "z"}) {' % (a, x, b, y, z))
    print("  %%y = rlx.matmul %%a, %%b : (%s, %s) -> %s" % (a, b, y))
    print("  %%z = rlx.matmul %%x, %%b : (%s, %s) -> %s" % (x, b, z))
    print("  return %%y, %%z : %s, %s" % (y, z))
    print("}")


def write_tall_inputs(folder, seed):
    rng = random.Random(seed)
    for name, rows in TALL_ROWS.items():
        write_npy(folder + "/%s.npy" % name, "<f4", [rows, TALL_K],
                  fractions(rng, rows * TALL_K))
    write_npy(folder + "/b.npy", "<f4", [TALL_K, TALL_N],
              fractions(rng, TALL_K * TALL_N))


def check_tall(folder, out_path):
    got = {name: values for name, (_, _, values) in read_safetensors(out_path).items()}
    read = lambda name: read_npy_f32(folder + "/" + name + ".npy")
    b = read("b")
    want = {out: matmul(read(name), b, TALL_K, TALL_N)
            for out, name in (("y", "a"), ("z", "x"))}
    check_exact("tall register tiles", got, want)


def fractions(rng, count):
    return [rng.randint(-15, 15) / 16 for _ in range(count)]


def write_inputs(folder, rows, seed):
    rng = random.Random(seed)
    write_npy(folder + "/a.npy", "<f4", [rows, K], fractions(rng, rows * K))
    write_npy(folder + "/b.npy", "<f4", [K, N], fractions(rng, K * N))
    write_npy(folder + "/x.npy", "<f4", [XROWS, XK], fractions(rng, XROWS * XK))
    write_npy(folder + "/w.npy", "<f4", [XK, XN], fractions(rng, XK * XN))


def check(folder, out_path):
    got = {name: values for name, (_, _, values) in read_safetensors(out_path).items()}
    read = lambda name: read_npy_f32(folder + "/" + name + ".npy")
    want = {
        "y": matmul(read("a"), read("b"), K, N),
        "z": matmul(read("x"), read("w"), XK, XN),
    }
    check_exact("register tiles", got, want)


if __name__ == "__main__":
    if sys.argv[1] == "tall-model":
        tall_model()
    elif sys.argv[1] == "tall-inputs":
        write_tall_inputs(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "tall-check":
        check_tall(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "model":
        model(sys.argv[2])
    elif sys.argv[1] == "inputs":
        write_inputs(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        check(sys.argv[2], sys.argv[3])
