"""A model whose int8, bf16 and large f32 weights the CPU reads prepacked
(rlx-pack-dot-operands; int8 and bf16 on a CPU with VNNI and AVX512-BF16),
its weights, inputs, and its reference as plain loops (no numpy: lit's
python3 may lack it).

    packed_weights.py model static|dyn|alldyn   prints the rlx MLIR
    packed_weights.py weights FILE               writes the weights
    packed_weights.py inputs DIR ROWS BATCH SEED writes xf.npy, xi.npy,
                                                 img.npy, xg.npy and im.npy
                                                 into DIR
    packed_weights.py check DIR OUT.safetensors

Outputs: y1, a bf16 matmul widened to f32 (xf rounded to bf16 times wb);
y2, an i8 x i8 -> i32 matmul (xi times w8); y3 and y4, i8 convs (3x3
stride 2 padding 1, and 1x1) by f8 and p8; y5, an f32 matmul by the 2 MiB
wf, and y6, a 1x1 f32 conv by the 2 MiB pf (the f32 kernel's panels); r1,
r2, r3, the packed weights unpacked again (rlx.unpack_dot_operand of
rlx.pack_dot_operand, each lowered as an affine copy). The bf16 values are
multiples of 1/16 below 8 in magnitude, exact in bf16; the f32 ones of
y5 and y6 multiples of 1/16 below 1: every product and sum is exact in
f32, and all outputs are compared exactly. i8 values span [-128, 127].
"""
import random
import struct
import sys

from npy_f32 import check_exact, read_npy_f32, read_safetensors, write_npy, write_safetensors
from plain_loops import conv_nhwc, matmul

K8, N8 = 37, 50        # w8: [K8, N8]; K8 is not a multiple of 4
KB, NB = 77, 40        # wb: [KB, NB]; KB is odd
C, F, P = 5, 7, 9      # img channels, f8's and p8's filters
H = 6                  # img height and width
KF, NF = 1024, 512     # wf: [KF, NF], 2 MiB of f32
CF, FF = 8192, 64      # pf: [1, 1, CF, FF], 2 MiB of f32
ROWS_G = 3             # rows of xg per batch


def model(mode):
    xf = {"static": "2x5x77", "dyn": "?x5x77", "alldyn": "?x?x77"}[mode]
    xi = {"static": "2x5x37", "dyn": "?x5x37", "alldyn": "?x?x37"}[mode]
    img = {"static": "2x6x6x5", "dyn": "?x6x6x5", "alldyn": "?x?x?x5"}[mode]
    lead = lambda t: t[: t.rindex("x") + 1]
    y1 = "%s%d" % (lead(xf), NB)
    y2 = "%s%d" % (lead(xi), N8)
    y3 = {"static": "2x3x3x7", "dyn": "?x3x3x7", "alldyn": "?x?x?x7"}[mode]
    y4 = {"static": "2x6x6x9", "dyn": "?x6x6x9", "alldyn": "?x?x?x9"}[mode]
    xg = {"static": "2x3x1024", "dyn": "?x3x1024", "alldyn": "?x?x1024"}[mode]
    im = {"static": "2x2x2x8192", "dyn": "?x2x2x8192", "alldyn": "?x?x?x8192"}[mode]
    y5 = "%s%d" % (lead(xg), NF)
    y6 = "%s%d" % (lead(im), FF)
    conv = "strides = array<i64: %s>, padding = array<i64: %s>, dilations = array<i64: 1, 1>, groups = 1 : i64"
    print('func.func @f(%%xf: tensor<%sxf32> {rlx.name = "xf"}, %%xi: tensor<%sxi8> {rlx.name = "xi"}, '
          '%%img: tensor<%sxi8> {rlx.name = "img"}, %%xg: tensor<%sxf32> {rlx.name = "xg"}, '
          '%%im: tensor<%sxf32> {rlx.name = "im"}) -> (tensor<%sxf32> {rlx.name = "y1"}, '
          'tensor<%sxi32> {rlx.name = "y2"}, tensor<%sxi32> {rlx.name = "y3"}, '
          'tensor<%sxi32> {rlx.name = "y4"}, tensor<%sxf32> {rlx.name = "y5"}, '
          'tensor<%sxf32> {rlx.name = "y6"}, tensor<37x50xi8> {rlx.name = "r1"}, '
          'tensor<3x3x5x7xi8> {rlx.name = "r2"}, tensor<77x40xbf16> {rlx.name = "r3"}) {'
          % (xf, xi, img, xg, im, y1, y2, y3, y4, y5, y6))
    print('  %wb = rlx.param "wb" : tensor<77x40xbf16>')
    print('  %w8 = rlx.param "w8" : tensor<37x50xi8>')
    print('  %f8 = rlx.param "f8" : tensor<3x3x5x7xi8>')
    print('  %p8 = rlx.param "p8" : tensor<1x1x5x9xi8>')
    print('  %wf = rlx.param "wf" : tensor<1024x512xf32>')
    print('  %pf = rlx.param "pf" : tensor<1x1x8192x64xf32>')
    print('  %%xb = rlx.cast %%xf : tensor<%sxf32> -> tensor<%sxbf16>' % (xf, xf))
    print('  %%xw = rlx.cast %%xb : tensor<%sxbf16> -> tensor<%sxf32>' % (xf, xf))
    print('  %ww = rlx.cast %wb : tensor<77x40xbf16> -> tensor<77x40xf32>')
    print('  %%y1 = rlx.matmul %%xw, %%ww : (tensor<%sxf32>, tensor<77x40xf32>) -> tensor<%sxf32>' % (xf, y1))
    print('  %%y2 = rlx.matmul %%xi, %%w8 : (tensor<%sxi8>, tensor<37x50xi8>) -> tensor<%sxi32>' % (xi, y2))
    print('  %%y3 = rlx.conv2d %%img, %%f8 {%s} : (tensor<%sxi8>, tensor<3x3x5x7xi8>) -> tensor<%sxi32>'
          % (conv % ("2, 2", "1, 1, 1, 1"), img, y3))
    print('  %%y4 = rlx.conv2d %%img, %%p8 {%s} : (tensor<%sxi8>, tensor<1x1x5x9xi8>) -> tensor<%sxi32>'
          % (conv % ("1, 1", "0, 0, 0, 0"), img, y4))
    print('  %%y5 = rlx.matmul %%xg, %%wf : (tensor<%sxf32>, tensor<1024x512xf32>) -> tensor<%sxf32>' % (xg, y5))
    print('  %%y6 = rlx.conv2d %%im, %%pf {%s} : (tensor<%sxf32>, tensor<1x1x8192x64xf32>) -> tensor<%sxf32>'
          % (conv % ("1, 1", "0, 0, 0, 0"), im, y6))
    print('  %p1 = rlx.pack_dot_operand %w8 : (tensor<37x50xi8>) -> tensor<2x10x128xi8>')
    print('  %r1 = rlx.unpack_dot_operand %p1 : (tensor<2x10x128xi8>) -> tensor<37x50xi8>')
    print('  %p2 = rlx.pack_dot_operand %f8 : (tensor<3x3x5x7xi8>) -> tensor<1x12x128xi8>')
    print('  %r2 = rlx.unpack_dot_operand %p2 : (tensor<1x12x128xi8>) -> tensor<3x3x5x7xi8>')
    print('  %p3 = rlx.pack_dot_operand %wb : (tensor<77x40xbf16>) -> tensor<2x39x64xbf16>')
    print('  %r3 = rlx.unpack_dot_operand %p3 : (tensor<2x39x64xbf16>) -> tensor<77x40xbf16>')
    print('  return %%y1, %%y2, %%y3, %%y4, %%y5, %%y6, %%r1, %%r2, %%r3 : tensor<%sxf32>, tensor<%sxi32>, '
          'tensor<%sxi32>, tensor<%sxi32>, tensor<%sxf32>, tensor<%sxf32>, tensor<37x50xi8>, '
          'tensor<3x3x5x7xi8>, tensor<77x40xbf16>\n}'
          % (y1, y2, y3, y4, y5, y6))


def bf16_bits(v):
    """The bf16 pattern of a value exact in bf16."""
    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    assert bits & 0xFFFF == 0, v
    return bits >> 16


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def int8s(rng, count):
    # The extremes first, so every weight holds -128 and 127.
    return [-128, 127] + [rng.randint(-128, 127) for _ in range(count - 2)]


def weights():
    rng = random.Random(11)
    return {
        "wb": ("BF16", [KB, NB], [bf16_bits(rng.randint(-127, 127) / 16) for _ in range(KB * NB)]),
        "w8": ("I8", [K8, N8], int8s(rng, K8 * N8)),
        "f8": ("I8", [3, 3, C, F], int8s(rng, 9 * C * F)),
        "p8": ("I8", [1, 1, C, P], int8s(rng, C * P)),
        "wf": ("F32", [KF, NF], fractions(rng, KF * NF)),
        "pf": ("F32", [1, 1, CF, FF], fractions(rng, CF * FF)),
    }


def fractions(rng, count):
    return [rng.randint(-15, 15) / 16 for _ in range(count)]


def write_inputs(folder, rows, batch, seed):
    rng = random.Random(seed)
    write_npy(folder + "/xf.npy", "<f4", [batch, rows, KB],
              [rng.randint(-127, 127) / 16 for _ in range(batch * rows * KB)])
    write_npy(folder + "/xi.npy", "|i1", [batch, rows, K8], int8s(rng, batch * rows * K8))
    write_npy(folder + "/img.npy", "|i1", [batch, H, H, C], int8s(rng, batch * H * H * C))
    write_npy(folder + "/xg.npy", "<f4", [batch, ROWS_G, KF], fractions(rng, batch * ROWS_G * KF))
    write_npy(folder + "/im.npy", "<f4", [batch, 2, 2, CF], fractions(rng, batch * 4 * CF))


def read_npy_i8(path):
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header_len:]
    return struct.unpack("<%db" % len(body), body)


def check(folder, out_path):
    w = {name: values for name, (_, _, values) in weights().items()}
    got = {name: values for name, (_, _, values) in read_safetensors(out_path).items()}
    xf = read_npy_f32(folder + "/xf.npy")
    xi = read_npy_i8(folder + "/xi.npy")
    img = read_npy_i8(folder + "/img.npy")
    batch = len(img) // (H * H * C)
    want = {
        "y1": matmul(xf, [bf16_value(b) for b in w["wb"]], KB, NB),
        "y2": matmul(xi, w["w8"], K8, N8),
        "y3": conv_nhwc(img, batch, H, C, w["f8"], 3, F, 2, 1),
        "y4": conv_nhwc(img, batch, H, C, w["p8"], 1, P, 1, 0),
        "y5": matmul(read_npy_f32(folder + "/xg.npy"), w["wf"], KF, NF),
        "y6": matmul(read_npy_f32(folder + "/im.npy"), w["pf"], CF, FF),
        "r1": list(w["w8"]), "r2": list(w["f8"]), "r3": list(w["wb"]),
    }
    check_exact("packed weights", got, want)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "model":
        model(sys.argv[2])
    elif command == "weights":
        write_safetensors(sys.argv[2], weights())
    elif command == "inputs":
        write_inputs(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif command == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown command " + command)
