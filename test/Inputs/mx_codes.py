"""Every finite code of each narrow float format as a block-scaled weight
of an f32 matmul by the identity, so the product is the dequantized weight
itself: the CPU kernel's decoding of packed codes (through f16 where f16
holds the format) against the formats' definitions (no numpy: lit's
python3 may lack it).

    mx_codes.py [--block B] model static|dyn   prints the rlx MLIR
    mx_codes.py [--block B] weights FILE       writes the codes and scales
    mx_codes.py inputs DIR ROWS    writes x.npy (the identity's first ROWS
                                   rows) into DIR
    mx_codes.py [--block B] check ROWS OUT.safetensors

K = 1152 rows (every code of an 8-bit format, several times; the kernel's
K blocks are 128 rows), N = 512 (16 panels; each column's codes rotated by
its index): 2 MiB as f32, the size from which the CPU keeps the weight
narrow. One f8E8M0FNU scale per B rows (32 by default; the last block
shorter where B does not divide K). Codes of inf and NaN are replaced by 0
(a product 0 * inf in the identity's sum would be NaN). The products are
exact, so y must equal the reference exactly.
"""
import sys

from npy_f32 import read_safetensors, write_npy, write_safetensors

K, N, BLOCK = 1152, 512, 32

# name: (exponent bits, mantissa bits, bias, specials)
FORMATS = {
    "f8E4M3FN": (4, 3, 7, "nan_only"),
    "f8E5M2": (5, 2, 15, "ieee"),
    "f8E4M3FNUZ": (4, 3, 8, "nan_as_negative_zero"),
    "f8E5M2FNUZ": (5, 2, 16, "nan_as_negative_zero"),
    "f6E3M2FN": (3, 2, 3, "finite"),
    "f6E2M3FN": (2, 3, 1, "finite"),
    "f4E2M1FN": (2, 1, 1, "finite"),
    # Signless integer codes (ONNX's blocked int4, MXINT8's i8): two's
    # complement.
    "i4": (None, 4, None, "integer"),
    "i8": (None, 8, None, "integer"),
}


def width(fmt):
    e, m, _, specials = FORMATS[fmt]
    return m if specials == "integer" else 1 + e + m


def is_finite(fmt, code):
    e_bits, m_bits, _, specials = FORMATS[fmt]
    if specials == "integer":
        return True
    magnitude = code & ((1 << (e_bits + m_bits)) - 1)
    if specials == "ieee":
        return (magnitude >> m_bits) != (1 << e_bits) - 1
    if specials == "nan_only":
        return magnitude != (1 << (e_bits + m_bits)) - 1
    if specials == "nan_as_negative_zero":
        return code != 1 << (e_bits + m_bits)
    return True


def value(fmt, code):
    e_bits, m_bits, bias, specials = FORMATS[fmt]
    if specials == "integer":
        return code - (1 << m_bits) if code >> (m_bits - 1) else code
    e = (code >> m_bits) & ((1 << e_bits) - 1)
    m = code & ((1 << m_bits) - 1)
    if e == 0:
        magnitude = m / 2.0 ** m_bits * 2.0 ** (1 - bias)
    else:
        magnitude = (1 + m / 2.0 ** m_bits) * 2.0 ** (e - bias)
    return -magnitude if code >> (e_bits + m_bits) & 1 else magnitude


def codes(fmt):
    size = 1 << width(fmt)
    out = []
    for k in range(K):
        for n in range(N):
            code = (k + n) % size
            out.append(code if is_finite(fmt, code) else 0)
    return out


def blocks():
    return -(-K // BLOCK)


def scales():
    return [120 + (b * 3 + n) % 15 for b in range(blocks()) for n in range(N)]


def model(mode):
    rows = {"static": str(K), "one": "1", "dyn": "?"}[mode]
    x = "tensor<%sx%dxf32>" % (rows, K)
    y = "tensor<%sx%dxf32>" % (rows, N)
    outs = ", ".join('%s {rlx.name = "y_%s"}' % (y, fmt) for fmt in FORMATS)
    print('func.func @f(%%x: %s {rlx.name = "x"}) -> (%s) {' % (x, outs))
    print('  %%s = rlx.param "scales" : tensor<%dx%dxf8E8M0FNU>' % (blocks(), N))
    results = []
    for i, fmt in enumerate(FORMATS):
        w = width(fmt)
        print('  %%u%d = rlx.param "%s" : tensor<%dx%dxui8>' % (i, fmt, K, N))
        source = "%%u%d" % i
        if w < 8 and FORMATS[fmt][3] != "integer":
            print('  %%i%d = rlx.cast %%u%d : tensor<%dx%dxui8> -> tensor<%dx%dxi%d>'
                  % (i, i, K, N, K, N, w))
            source = "%%i%d" % i
        if FORMATS[fmt][3] == "integer":
            print('  %%c%d = rlx.cast %%u%d : tensor<%dx%dxui8> -> tensor<%dx%dx%s>'
                  % (i, i, K, N, K, N, fmt))
        else:
            print('  %%c%d = rlx.bitcast %s : tensor<%dx%dx%s> -> tensor<%dx%dx%s>'
                  % (i, source, K, N, "ui8" if w == 8 else "i%d" % w, K, N, fmt))
        print('  %%d%d = rlx.block_dequantize %%c%d, %%s {axis = 0, block_size = %d} : '
              'tensor<%dx%dx%s>, tensor<%dx%dxf8E8M0FNU> -> tensor<%dx%dxf32>'
              % (i, i, BLOCK, K, N, fmt, blocks(), N, K, N))
        print('  %%y%d = rlx.matmul %%x, %%d%d : (%s, tensor<%dx%dxf32>) -> %s'
              % (i, i, x, K, N, y))
        results.append("%%y%d" % i)
    print('  return %s : %s' % (", ".join(results), ", ".join([y] * len(FORMATS))))
    print('}')


def main():
    global BLOCK
    if sys.argv[1] == "--block":
        BLOCK = int(sys.argv[2])
        del sys.argv[1:3]
    cmd = sys.argv[1]
    if cmd == "model":
        model(sys.argv[2])
    elif cmd == "weights":
        tensors = {"scales": ("F8_E8M0", [blocks(), N], scales())}
        for fmt in FORMATS:
            tensors[fmt] = ("U8", [K, N], codes(fmt))
        write_safetensors(sys.argv[2], tensors)
    elif cmd == "inputs":
        rows = int(sys.argv[3])
        write_npy(sys.argv[2] + "/x.npy", "<f4", [rows, K],
                  [1.0 if i == j else 0.0 for i in range(rows) for j in range(K)])
    elif cmd == "check":
        rows = int(sys.argv[2])
        got = read_safetensors(sys.argv[3])
        scale = [2.0 ** (v - 127) for v in scales()]
        failed = False
        for fmt in FORMATS:
            lut = [value(fmt, c) if is_finite(fmt, c) else 0.0 for c in range(1 << width(fmt))]
            c = codes(fmt)
            want = [lut[c[i]] * scale[(i // N // BLOCK) * N + i % N] for i in range(rows * N)]
            y = got["y_" + fmt][2]
            bad = [i for i in range(rows * N) if y[i] != want[i]]
            if len(y) != rows * N or bad:
                failed = True
                print("%s differs at %s: got %s, want %s" % (
                    fmt, bad[:4], [y[i] for i in bad[:4]], [want[i] for i in bad[:4]]))
            else:
                print("%s: all %d values exact" % (fmt, rows * N))
        sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
