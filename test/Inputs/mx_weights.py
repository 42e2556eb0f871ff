"""An MX linear layer (the OCP Microscaling formats, rlx.block_dequantize),
its weights, inputs and reference as plain loops (no numpy: lit's python3
may lack it).

    mx_weights.py model static|dyn    prints the rlx MLIR
    mx_weights.py weights FILE        writes the weights
    mx_weights.py inputs DIR ROWS     writes x.npy into DIR
    mx_weights.py check DIR OUT.safetensors

y = x @ MXFP8(w8) + x @ MXFP4(w4) + b, K = 64 (two blocks of 32 along the
reduction dim), N = 24. w8 holds f8E4M3FN codes (safetensors F8_E4M3, NaN
codes left out), w4 f4E2M1FN codes one per byte (U8: safetensors' F4 packs
two per byte), both with one f8E8M0FNU scale per block (F8_E8M0). The
reference decodes the codes from the formats' definitions (exact); y is
compared within the bound of f32 sums in any order: (2K + 2) u times the
sum of the terms' magnitudes.
"""
import random
import sys

from npy_f32 import read_npy_f32, read_safetensors, write_npy, write_safetensors
from plain_loops import matmul

K, N, BLOCK = 64, 24, 32


def blocks():
    return -(-K // BLOCK)


def model(mode):
    rows = {"static": "3", "dyn": "?"}[mode]
    print('func.func @f(%%x: tensor<%sx%dxf32> {rlx.name = "x"}) -> (tensor<%sx%dxf32> {rlx.name = "y"}) {'
          % (rows, K, rows, N))
    print('  %%w8 = rlx.param "w8" : tensor<%dx%dxf8E4M3FN>' % (K, N))
    print('  %%s8 = rlx.param "w8_scales" : tensor<%dx%dxf8E8M0FNU>' % (blocks(), N))
    print('  %%u4 = rlx.param "w4" : tensor<%dx%dxui8>' % (K, N))
    print('  %%s4 = rlx.param "w4_scales" : tensor<%dx%dxf8E8M0FNU>' % (blocks(), N))
    print('  %%b = rlx.param "b" : tensor<%dxf32>' % N)
    print('  %%i4 = rlx.cast %%u4 : tensor<%dx%dxui8> -> tensor<%dx%dxi4>' % (K, N, K, N))
    print('  %%c4 = rlx.bitcast %%i4 : tensor<%dx%dxi4> -> tensor<%dx%dxf4E2M1FN>' % (K, N, K, N))
    for name, codes, scales, t in (("d8", "w8", "s8", "f8E4M3FN"), ("d4", "c4", "s4", "f4E2M1FN")):
        print('  %%%s = rlx.block_dequantize %%%s, %%%s {axis = 0, block_size = %d} : '
              'tensor<%dx%dx%s>, tensor<%dx%dxf8E8M0FNU> -> tensor<%dx%dxf32>'
              % (name, codes, scales, BLOCK, K, N, t, blocks(), N, K, N))
    out = "tensor<%sx%dxf32>" % (rows, N)
    print('  %%y8 = rlx.matmul %%x, %%d8 : (tensor<%sx%dxf32>, tensor<%dx%dxf32>) -> %s' % (rows, K, K, N, out))
    print('  %%y4 = rlx.matmul %%x, %%d4 : (tensor<%sx%dxf32>, tensor<%dx%dxf32>) -> %s' % (rows, K, K, N, out))
    print('  %%s = rlx.add %%y8, %%y4 : (%s, %s) -> %s' % (out, out, out))
    print('  %%y = rlx.add %%s, %%b : (%s, tensor<%dxf32>) -> %s' % (out, N, out))
    print('  return %%y : %s' % out)
    print('}')


def e4m3fn(code):
    e, m = (code >> 3) & 15, code & 7
    magnitude = m * 2.0 ** -9 if e == 0 else (8 + m) * 2.0 ** (e - 10)
    return -magnitude if code & 0x80 else magnitude


def e2m1fn(code):
    code &= 15
    e, m = (code >> 1) & 3, code & 1
    magnitude = 0.5 * m if e == 0 else (2 + m) * 2.0 ** (e - 2)
    return -magnitude if code & 8 else magnitude


def weights():
    rng = random.Random(5)
    w8 = [rng.choice([c for c in range(256) if c & 0x7F != 0x7F]) for _ in range(K * N)]
    # The bits above the f4 code are ignored: some codes carry them.
    w4 = [rng.randrange(16) | (rng.randrange(2) << 6) for _ in range(K * N)]
    s8 = [rng.randint(118, 134) for _ in range(blocks() * N)]
    s4 = [rng.randint(120, 130) for _ in range(blocks() * N)]
    b = [rng.randint(-16, 16) / 8 for _ in range(N)]
    return {"w8": ("F8_E4M3", [K, N], w8), "w8_scales": ("F8_E8M0", [blocks(), N], s8),
            "w4": ("U8", [K, N], w4), "w4_scales": ("F8_E8M0", [blocks(), N], s4),
            "b": ("F32", [N], b)}


def dequantized(codes, scales, decode):
    return [decode(codes[k * N + j]) * 2.0 ** (scales[(k // BLOCK) * N + j] - 127)
            for k in range(K) for j in range(N)]


def main():
    cmd = sys.argv[1]
    if cmd == "model":
        model(sys.argv[2])
    elif cmd == "weights":
        write_safetensors(sys.argv[2], weights())
    elif cmd == "inputs":
        rows = int(sys.argv[3])
        rng = random.Random(rows)
        write_npy(sys.argv[2] + "/x.npy", "<f4", [rows, K],
                  [rng.randint(-64, 64) / 16 for _ in range(rows * K)])
    elif cmd == "check":
        x = read_npy_f32(sys.argv[2] + "/x.npy")
        w = weights()
        d8 = dequantized(w["w8"][2], w["w8_scales"][2], e4m3fn)
        d4 = dequantized(w["w4"][2], w["w4_scales"][2], e2m1fn)
        want = [a + c + w["b"][2][i % N] for i, (a, c) in
                enumerate(zip(matmul(x, d8, K, N), matmul(x, d4, K, N)))]
        # f32 sums of 2K products and a bias, in any order: within
        # (2K + 1) u times the sum of the terms' magnitudes (u = 2^-24).
        ax = [abs(v) for v in x]
        size = [a + c + abs(w["b"][2][i % N]) for i, (a, c) in
                enumerate(zip(matmul(ax, [abs(v) for v in d8], K, N),
                              matmul(ax, [abs(v) for v in d4], K, N)))]
        bound = [(2 * K + 2) * 2.0 ** -24 * m for m in size]
        got = read_safetensors(sys.argv[3])["y"][2]
        bad = [i for i, (g, v, e) in enumerate(zip(got, want, bound)) if abs(g - v) > e]
        if len(got) != len(want) or bad:
            print("y differs at %s: got %s, want %s" % (bad[:5], [got[i] for i in bad[:5]],
                                                         [want[i] for i in bad[:5]]))
            sys.exit(1)
        print("y: all %d values within the f32 sum bound" % len(want))


if __name__ == "__main__":
    main()
