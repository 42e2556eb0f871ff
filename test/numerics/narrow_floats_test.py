#!/usr/bin/env python3
"""rlx.cast to and from the narrow float types, and rlx.fake_quant, against
the ml_dtypes package, bit for bit.

For each format: every code decoded to f32 and f64; from f32 and f64 a dense
sweep (every value of the format, the midpoints between neighbours and one
ulp either side of each, a grid over the exponent range around the format's,
zeros, infinities, NaNs, subnormals); every f16 and every bf16 pattern;
integers; saturating casts (reference: clip to +-max, then ml_dtypes);
fake_quant of the same formats given as attributes. A format ml_dtypes does
not have (e5m3 and e3m1) is checked against exact rational rounding written
here. Usage: narrow_floats_test.py RLXC RLX_RUN SCRATCH_DIR
"""
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np

try:
    import ml_dtypes
except ImportError:
    print("ml_dtypes is missing: scripts/install-deps.sh installs it into "
          "build/test-venv, which ctest runs this test with")
    sys.exit(1)

RLXC, RLX_RUN, SCRATCH = sys.argv[1:4]
os.makedirs(SCRATCH, exist_ok=True)

# MLIR type, ml_dtypes type, exponent bits, mantissa bits, bias, specials
FORMATS = [
    ("f8E4M3FN", ml_dtypes.float8_e4m3fn, 4, 3, 7, "fn"),
    ("f8E5M2", ml_dtypes.float8_e5m2, 5, 2, 15, "ieee"),
    ("f8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz, 4, 3, 8, "fnuz"),
    ("f8E5M2FNUZ", ml_dtypes.float8_e5m2fnuz, 5, 2, 16, "fnuz"),
    ("f8E4M3B11FNUZ", ml_dtypes.float8_e4m3b11fnuz, 4, 3, 11, "fnuz"),
    ("f8E4M3", ml_dtypes.float8_e4m3, 4, 3, 7, "ieee"),
    ("f8E3M4", ml_dtypes.float8_e3m4, 3, 4, 3, "ieee"),
    ("f6E3M2FN", ml_dtypes.float6_e3m2fn, 3, 2, 3, "finite"),
    ("f6E2M3FN", ml_dtypes.float6_e2m3fn, 2, 3, 1, "finite"),
    ("f4E2M1FN", ml_dtypes.float4_e2m1fn, 2, 1, 1, "finite"),
]

failures = []


def check(what, got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        failures.append(f"{what}: got {got.dtype}{got.shape}, "
                        f"want {want.dtype}{want.shape}")
        return
    bad = np.nonzero(got != want)[0]
    if bad.size:
        i = bad[0]
        failures.append(f"{what}: {bad.size} of {got.size} differ, first at "
                        f"{i}: got {got[i]:#x}, want {want[i]:#x}")
    else:
        print(f"ok   {what} ({got.size} values)")


def compile_module(stem, text):
    path = os.path.join(SCRATCH, stem + ".mlir")
    with open(path, "w") as f:
        f.write(text)
    so = os.path.join(SCRATCH, stem + ".so")
    r = subprocess.run([RLXC, path, "-o", so], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
        sys.exit(f"rlxc failed on {path}")
    return so


def run(so, fn, array):
    inp = os.path.join(SCRATCH, f"{fn}-in.npy")
    out = os.path.join(SCRATCH, f"{fn}-out.npy")
    np.save(inp, array)
    r = subprocess.run([RLX_RUN, so, "--fn", fn, "--input", inp, "--output",
                        out], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
        sys.exit(f"rlx-run failed on {fn}")
    return np.load(out)


def module_text(t, width, e, m, bias, specials):
    """Entries reading and writing codes as i8 (bitcast through i<width>)."""
    code = f"i{width}"

    def to_codes(v, shape="?"):
        lines = [f"    %n = rlx.bitcast {v} : tensor<{shape}x{t}> -> tensor<{shape}x{code}>"]
        if width < 8:
            lines.append(f"    %c = rlx.cast %n : tensor<{shape}x{code}> -> tensor<{shape}xi8>")
            return lines, "%c"
        return lines, "%n"

    def entry(name, in_type, body, result):
        return (f"  func.func @{name}(%x: tensor<?x{in_type}>) -> tensor<?x{result}> {{\n"
                + "\n".join(body) + "\n  }\n")

    fns = []
    # decode: i8 codes -> f32 / f64 bits
    for wide, bits in (("f32", "i32"), ("f64", "i64")):
        body = []
        src = "%x"
        if width < 8:
            body.append(f"    %t = rlx.cast %x : tensor<?xi8> -> tensor<?x{code}>")
            src = "%t"
        body += [f"    %q = rlx.bitcast {src} : tensor<?x{code}> -> tensor<?x{t}>",
                 f"    %w = rlx.cast %q : tensor<?x{t}> -> tensor<?x{wide}>",
                 f"    %b = rlx.bitcast %w : tensor<?x{wide}> -> tensor<?x{bits}>",
                 f"    return %b : tensor<?x{bits}>"]
        fns.append(entry(f"decode_{wide}", "i8", body, bits))
    # encode from f32, f64, f16, i32, and bf16 (an f32 input cast exactly)
    for name, src_type, pre in (("from_f32", "f32", None), ("from_f64", "f64", None),
                                ("from_f16", "f16", None), ("from_i32", "i32", None),
                                ("from_bf16", "f32", "bf16")):
        for sat in ("", "_sat"):
            if sat and name != "from_f32":
                continue
            body = []
            src = "%x"
            if pre:
                body.append(f"    %p = rlx.cast %x : tensor<?x{src_type}> -> tensor<?x{pre}>")
                src, src_type2 = "%p", pre
            else:
                src_type2 = src_type
            attr = " {saturate}" if sat else ""
            body.append(f"    %q = rlx.cast {src}{attr} : tensor<?x{src_type2}> -> tensor<?x{t}>")
            lines, out = to_codes("%q")
            body += lines + [f"    return {out} : tensor<?xi8>"]
            fns.append(entry(name + sat, src_type, body, "i8"))
    # fake_quant in f32 and f64
    for wide in ("f32", "f64"):
        body = [f"    %q = rlx.fake_quant %x {{exponent_bits = {e}, mantissa_bits = {m}, "
                f"exponent_bias = {bias}, specials = \"{specials}\"}} : tensor<?x{wide}>",
                f"    return %q : tensor<?x{wide}>"]
        fns.append(entry(f"fake_quant_{wide}", wide, body, wide))
    return "module {\n" + "".join(fns) + "}\n"


def values_of(T, width):
    codes = np.arange(2 ** width, dtype=np.uint8)
    v = codes.view(T).astype(np.float64)
    return np.unique(v[np.isfinite(v)])


def sweep(T, width, dtype, rng):
    """The dense input set, in `dtype` (f32 or f64)."""
    finite = values_of(T, width)
    pos = finite[finite > 0]
    mids = (finite[:-1] + finite[1:]) / 2
    above_max = [pos[-1] + (pos[-1] - pos[-2]) / 2, pos[-1] * 1.5, pos[-1] * 2]
    base = np.concatenate([finite, mids, above_max, [pos[0] / 2, pos[0] / 4]])
    base = np.concatenate([base, -base]).astype(dtype)
    info = np.finfo(dtype)
    near = np.concatenate([np.nextafter(base, dtype(np.inf)),
                           np.nextafter(base, dtype(-np.inf))])
    # a grid: every exponent from 2^-6 below the smallest subnormal to 2^3
    # above the largest value, 4096 mantissas each
    lo = int(np.floor(np.log2(pos[0]))) - 6
    hi = int(np.ceil(np.log2(pos[-1]))) + 3
    mant = 1 + np.arange(4096) / 4096 + rng.random(4096) / 4096
    grid = np.concatenate([np.ldexp(mant, k) for k in range(lo, hi + 1)])
    grid = np.concatenate([grid, -grid]).astype(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan,
                        info.max, -info.max, info.tiny, -info.tiny,
                        info.smallest_subnormal, -info.smallest_subnormal],
                       dtype=dtype)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    nans = np.array([0x7fc00001, 0xffa00000, 0x7f800001] if dtype == np.float32
                    else [0x7ff8000000000001, 0xfff4000000000000],
                    dtype=bits).view(dtype)
    return np.concatenate([base, near, grid, special, nans])


def exact_round(x, e, m, bias, specials, saturate=False):
    """x rounded to the format, ties to even, by rational arithmetic."""
    if np.isnan(x):
        return np.nan
    emax = (2 ** e - 1) - bias - (1 if specials == "ieee" else 0)
    top = 2 * 2 ** m - (2 if specials == "fn" else 1)
    largest = Fraction(top, 2 ** m) * Fraction(2) ** emax
    ax = Fraction(abs(float(x))) if np.isfinite(x) else None
    if ax is not None:
        emin = 1 - bias
        k = emin
        while ax >= Fraction(2) ** (k + 1):
            k += 1
        ulp = Fraction(2) ** (k - m)
        q = ax / ulp
        n = int(q)
        rem = q - n
        if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
            n += 1
        r = n * ulp
    if ax is None or r > largest:
        if saturate or specials == "finite":
            r = largest
        elif specials == "ieee":
            return float(np.copysign(np.inf, x))
        else:
            return np.nan
    value = float(r)
    if specials == "fnuz" and value == 0:
        return 0.0
    return float(np.copysign(value, x))


rng = np.random.default_rng(0)
for t, T, e, m, bias, specials in FORMATS:
    width = 1 + e + m
    so = compile_module(t, module_text(t, width, e, m, bias, specials))
    mask = (1 << width) - 1
    codes = np.arange(2 ** width, dtype=np.uint8)
    ref = codes.view(T)

    # decode every code
    for wide, bits in ((np.float32, np.uint32), (np.float64, np.uint64)):
        got = run(so, f"decode_{np.dtype(wide).name.replace('float', 'f')}",
                  codes.view(np.int8)).view(bits)
        check(f"{t} -> {np.dtype(wide).name}", got, ref.astype(wide).view(bits))

    def encode(fn, x, want):
        got = run(so, fn, x).view(np.uint8) & mask
        check(f"{fn.replace('from_', '').replace('_sat', ' saturating')} -> {t}",
              got, want.view(np.uint8) & mask)

    for wide in (np.float32, np.float64):
        x = sweep(T, width, wide, rng)
        name = np.dtype(wide).name.replace("float", "f")
        with np.errstate(invalid="ignore", over="ignore"):
            encode(f"from_{name}", x, x.astype(T))
        if wide == np.float32:
            big = float(ml_dtypes.finfo(T).max)
            clipped = np.where(np.isnan(x), x, np.clip(x, -big, big))
            with np.errstate(invalid="ignore"):
                encode("from_f32_sat", x, clipped.astype(T))
        # fake_quant: the values of the same rounding, NaN for NaN
        got = run(so, f"fake_quant_{name}", x)
        with np.errstate(invalid="ignore", over="ignore"):
            want = x.astype(T).astype(wide)
        want = np.where(np.isnan(x), np.nan, want).astype(wide)
        bits = np.uint32 if wide == np.float32 else np.uint64
        nan_got, nan_want = np.isnan(got), np.isnan(want)
        check(f"fake_quant {t} in {name} (NaN positions)",
              nan_got.astype(np.uint8), nan_want.astype(np.uint8))
        keep = ~nan_want
        check(f"fake_quant {t} in {name}", got[keep].view(bits),
              want[keep].view(bits))

    every16 = np.arange(2 ** 16, dtype=np.uint16)
    with np.errstate(invalid="ignore", over="ignore"):
        h = every16.view(np.float16)
        encode("from_f16", h, h.astype(T))
        b = every16.view(ml_dtypes.bfloat16).astype(np.float32)
        encode("from_bf16", b, b.astype(T))
        ints = np.concatenate([np.arange(-600, 601), [2 ** 20, -(2 ** 31), 2 ** 31 - 1,
                                                      57343, 57344, 61439, 61440]]
                              ).astype(np.int32)
        encode("from_i32", ints, ints.astype(np.float64).astype(T))

# formats ml_dtypes does not have, against exact rational rounding
for e, m, bias, specials in ((5, 3, 15, "finite"), (3, 1, 3, "fn"), (4, 2, 9, "ieee")):
    text = ("module {\n  func.func @q(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
            f"    %q = rlx.fake_quant %x {{exponent_bits = {e}, mantissa_bits = {m}, "
            f"exponent_bias = {bias}, specials = \"{specials}\"}} : tensor<?xf32>\n"
            "    return %q : tensor<?xf32>\n  }\n"
            "  func.func @s(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
            f"    %q = rlx.fake_quant %x {{exponent_bits = {e}, mantissa_bits = {m}, "
            f"exponent_bias = {bias}, specials = \"{specials}\", saturate}} : tensor<?xf32>\n"
            "    return %q : tensor<?xf32>\n  }\n}\n")
    so = compile_module(f"e{e}m{m}", text)
    lo, hi = -bias - m - 3, 2 ** e - bias + 2
    x = np.concatenate([np.ldexp(1 + np.arange(0, 64) / 64, k) for k in range(lo, hi)])
    x = np.concatenate([x, -x, [0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)
    for fn, sat in (("q", False), ("s", True)):
        got = run(so, fn, x)
        want = np.array([exact_round(v, e, m, bias, specials, sat) for v in x],
                        dtype=np.float32)
        keep = ~np.isnan(want)
        check(f"fake_quant e{e}m{m} bias {bias} {specials}{' saturating' if sat else ''}"
              " (NaN positions)", np.isnan(got).astype(np.uint8),
              np.isnan(want).astype(np.uint8))
        check(f"fake_quant e{e}m{m} bias {bias} {specials}{' saturating' if sat else ''}",
              got[keep].view(np.uint32), want[keep].view(np.uint32))

if failures:
    print("\n".join("FAIL " + f for f in failures))
    sys.exit(1)
print("all narrow float checks passed")
