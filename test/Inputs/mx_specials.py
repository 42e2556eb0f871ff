"""The special codes (NaN, inf) of the narrow float formats that have them,
as a block-scaled weight of an f32 matmul that the CPU keeps narrow and
decodes in its kernel: y = ones @ W, so a column holding one special code
among finite ones sums to that special, and every other column is finite
(no numpy: lit's python3 may lack it).

    mx_specials.py model static|dyn   prints the rlx MLIR (1 or ? rows)
    mx_specials.py weights FILE       writes the codes and scales
    mx_specials.py inputs DIR ROWS    writes x.npy (ROWS rows of ones)
    mx_specials.py check ROWS OUT.safetensors

The formats and scales are mx_codes.py's (K = 1152, N = 512: 2 MiB as
f32). Column j holds the code of 1.0 everywhere but in row (7 j) % K,
which holds the j % 4-th of (+NaN, -NaN, +inf, -inf) where the format has
it (columns whose special the format lacks stay finite).
"""
import math
import sys

import mx_codes
from mx_codes import FORMATS, K, N
from npy_f32 import read_safetensors, write_npy, write_safetensors

# name: (code of 1.0, +NaN, -NaN, +inf, -inf); None where the format lacks it.
SPECIALS = {
    "f8E4M3FN": (0x38, 0x7F, 0xFF, None, None),
    "f8E5M2": (0x3C, 0x7E, 0xFE, 0x7C, 0xFC),
    "f8E4M3FNUZ": (0x40, 0x80, None, None, None),
    "f8E5M2FNUZ": (0x40, 0x80, None, None, None),
}


def codes(fmt):
    one, *specials = SPECIALS[fmt]
    out = [one] * (K * N)
    for n in range(N):
        special = specials[n % 4]
        if special is not None:
            out[(7 * n) % K * N + n] = special
    return out


def want(fmt, n):
    """'nan', 'inf', '-inf' or 'finite' for column n."""
    special = SPECIALS[fmt][1 + n % 4]
    if special is None:
        return "finite"
    return ["nan", "nan", "inf", "-inf"][n % 4]


def main():
    cmd = sys.argv[1]
    if cmd == "model":
        # mx_codes' model, restricted to the formats with specials.
        for fmt in list(FORMATS):
            if fmt not in SPECIALS:
                del FORMATS[fmt]
        mx_codes.model({"static": "one", "dyn": "dyn"}[sys.argv[2]])
    elif cmd == "weights":
        tensors = {"scales": ("F8_E8M0", [mx_codes.blocks(), N], mx_codes.scales())}
        for fmt in SPECIALS:
            tensors[fmt] = ("U8", [K, N], codes(fmt))
        write_safetensors(sys.argv[2], tensors)
    elif cmd == "inputs":
        rows = int(sys.argv[3])
        write_npy(sys.argv[2] + "/x.npy", "<f4", [rows, K], [1.0] * (rows * K))
    elif cmd == "check":
        rows = int(sys.argv[2])
        got = read_safetensors(sys.argv[3])
        failed = False
        for fmt in SPECIALS:
            y = got["y_" + fmt][2]
            bad = []
            for i, v in enumerate(y):
                kind = want(fmt, i % N)
                ok = {"nan": math.isnan(v), "inf": v == math.inf,
                      "-inf": v == -math.inf, "finite": math.isfinite(v)}[kind]
                if not ok:
                    bad.append((i, v, kind))
            if len(y) != rows * N or bad:
                failed = True
                print("%s: %d wrong, first %s" % (fmt, len(bad), bad[:4]))
            else:
                print("%s: all %d columns right" % (fmt, N))
        sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
