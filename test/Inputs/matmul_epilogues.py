"""A model of products whose elementwise epilogues the CPU runs per row tile
of the product (rlx-cpu-fuse-matmul-epilogues), its weights, inputs, and
its reference as plain loops (no numpy: lit's python3 may lack it).

    matmul_epilogues.py model static|dyn|alldyn   prints the rlx MLIR
    matmul_epilogues.py weights FILE               writes the weights
    matmul_epilogues.py inputs DIR BATCH SEED      writes img.npy, res.npy,
                                                   im8.npy, x.npy, sm.npy and
                                                   xw.npy into DIR
    matmul_epilogues.py check DIR OUT.safetensors

Outputs: y1 = relu(conv1x1(img, wc) + bc + res), a residual block's end;
y2 = relu(conv3x3(im8, wk, padding 1) + bk) (im2col; its batch x 64 rows
are whole 8-row tiles); y3 = relu(x w + bw) * 0.5, a dense layer. F = 40
and N = 24 are no multiple of the kernel's 32 columns, and the rows of y1
and y3 (batch x 5 x 5 pixels, batch x 7 rows of x) no multiple of its
8-row tiles; y4 = conv3x3(im8, wk, stride 2, padding 1), no epilogue: its
im2col rows are still rebuilt per tile (batch x 16 rows). Two products by
weights of 256 KiB or more, which the CPU prepacks into panels
(rlx-pack-dot-operands) and whose row tiles read the panels: y5 =
relu(conv3x3(sm, wp, padding 1) + bp), im2col rows of a 3x3 image (batch x
9 rows: a partial last tile), y6 = relu(xw wd + bd), 256 x 256. Values are
multiples of 1/16 below 1: every product and sum is exact in f32, so
outputs are compared exactly.
"""
import random
import sys

from npy_f32 import check_exact, read_npy_f32, read_safetensors, write_npy, write_safetensors
from plain_loops import conv_nhwc, matmul

H, C, F = 5, 6, 40     # img [B, H, H, C]; the convs' filters F
H8 = 8                 # im8 [B, H8, H8, C]
K, N, ROWS = 13, 24, 7  # x [B, ROWS, K] times w [K, N]
HS, CS, FP = 3, 32, 256  # sm [B, HS, HS, CS]; wp [3, 3, CS, FP], 288 KiB
KD = 256                 # xw [B, ROWS, KD] times wd [KD, KD], 256 KiB


def model(mode):
    img = {"static": "2x5x5x6", "dyn": "?x5x5x6", "alldyn": "?x?x?x6"}[mode]
    out = img[: img.rindex("x") + 1] + str(F)
    im8 = {"static": "2x8x8x6", "dyn": "?x8x8x6", "alldyn": "?x?x?x6"}[mode]
    out8 = im8[: im8.rindex("x") + 1] + str(F)
    out4 = {"static": "2x4x4x", "dyn": "?x4x4x", "alldyn": "?x?x?x"}[mode] + str(F)
    x = {"static": "2x7x13", "dyn": "?x7x13", "alldyn": "?x?x13"}[mode]
    y3 = x[: x.rindex("x") + 1] + str(N)
    sm = {"static": "2x3x3x", "dyn": "?x3x3x", "alldyn": "?x?x?x"}[mode] + str(CS)
    y5 = sm[: sm.rindex("x") + 1] + str(FP)
    xw = x[: x.rindex("x") + 1] + str(KD)
    y6 = xw
    conv = "strides = array<i64: 1, 1>, padding = array<i64: %s>, dilations = array<i64: 1, 1>, groups = 1 : i64"
    print('func.func @f(%%img: tensor<%sxf32> {rlx.name = "img"}, %%res: tensor<%sxf32> {rlx.name = "res"}, '
          '%%im8: tensor<%sxf32> {rlx.name = "im8"}, %%x: tensor<%sxf32> {rlx.name = "x"}, '
          '%%sm: tensor<%sxf32> {rlx.name = "sm"}, %%xw: tensor<%sxf32> {rlx.name = "xw"}) -> '
          '(tensor<%sxf32> {rlx.name = "y1"}, tensor<%sxf32> {rlx.name = "y2"}, '
          'tensor<%sxf32> {rlx.name = "y3"}, tensor<%sxf32> {rlx.name = "y4"}, '
          'tensor<%sxf32> {rlx.name = "y5"}, tensor<%sxf32> {rlx.name = "y6"}) {'
          % (img, out, im8, x, sm, xw, out, out8, y3, out4, y5, y6))
    print('  %%wc = rlx.param "wc" : tensor<1x1x%dx%dxf32>' % (C, F))
    print('  %%bc = rlx.param "bc" : tensor<%dxf32>' % F)
    print('  %%wk = rlx.param "wk" : tensor<3x3x%dx%dxf32>' % (C, F))
    print('  %%bk = rlx.param "bk" : tensor<%dxf32>' % F)
    print('  %%w = rlx.param "w" : tensor<%dx%dxf32>' % (K, N))
    print('  %%bw = rlx.param "bw" : tensor<%dxf32>' % N)
    print('  %%wp = rlx.param "wp" : tensor<3x3x%dx%dxf32>' % (CS, FP))
    print('  %%bp = rlx.param "bp" : tensor<%dxf32>' % FP)
    print('  %%wd = rlx.param "wd" : tensor<%dx%dxf32>' % (KD, KD))
    print('  %%bd = rlx.param "bd" : tensor<%dxf32>' % KD)
    print('  %%c1 = rlx.conv2d %%img, %%wc {%s} : (tensor<%sxf32>, tensor<1x1x%dx%dxf32>) -> tensor<%sxf32>'
          % (conv % "0, 0, 0, 0", img, C, F, out))
    print('  %%b1 = rlx.add %%c1, %%bc : (tensor<%sxf32>, tensor<%dxf32>) -> tensor<%sxf32>' % (out, F, out))
    print('  %%s1 = rlx.add %%b1, %%res : (tensor<%sxf32>, tensor<%sxf32>) -> tensor<%sxf32>' % (out, out, out))
    print('  %%y1 = rlx.relu %%s1 : tensor<%sxf32>' % out)
    def conv3x3_bias_relu(y, x, x_type, w, c, f, bias, y_type):
        print('  %%c%s = rlx.conv2d %%%s, %%%s {%s} : (tensor<%sxf32>, tensor<3x3x%dx%dxf32>) -> tensor<%sxf32>'
              % (y, x, w, conv % "1, 1, 1, 1", x_type, c, f, y_type))
        print('  %%b%s = rlx.add %%c%s, %%%s : (tensor<%sxf32>, tensor<%dxf32>) -> tensor<%sxf32>'
              % (y, y, bias, y_type, f, y_type))
        print('  %%y%s = rlx.relu %%b%s : tensor<%sxf32>' % (y, y, y_type))

    conv3x3_bias_relu("2", "im8", im8, "wk", C, F, "bk", out8)
    print('  %%m = rlx.matmul %%x, %%w : (tensor<%sxf32>, tensor<%dx%dxf32>) -> tensor<%sxf32>' % (x, K, N, y3))
    print('  %%b3 = rlx.add %%m, %%bw : (tensor<%sxf32>, tensor<%dxf32>) -> tensor<%sxf32>' % (y3, N, y3))
    print('  %%r3 = rlx.relu %%b3 : tensor<%sxf32>' % y3)
    print('  %half = rlx.constant dense<0.5> : tensor<f32>')
    print('  %%y3 = rlx.mul %%r3, %%half : (tensor<%sxf32>, tensor<f32>) -> tensor<%sxf32>' % (y3, y3))
    strided = conv.replace("1, 1>, padding", "2, 2>, padding") % "1, 1, 1, 1"
    print('  %%y4 = rlx.conv2d %%im8, %%wk {%s} : (tensor<%sxf32>, tensor<3x3x%dx%dxf32>) -> tensor<%sxf32>'
          % (strided, im8, C, F, out4))
    conv3x3_bias_relu("5", "sm", sm, "wp", CS, FP, "bp", y5)
    print('  %%m6 = rlx.matmul %%xw, %%wd : (tensor<%sxf32>, tensor<%dx%dxf32>) -> tensor<%sxf32>' % (xw, KD, KD, y6))
    print('  %%b6 = rlx.add %%m6, %%bd : (tensor<%sxf32>, tensor<%dxf32>) -> tensor<%sxf32>' % (y6, KD, y6))
    print('  %%y6 = rlx.relu %%b6 : tensor<%sxf32>' % y6)
    print('  return %%y1, %%y2, %%y3, %%y4, %%y5, %%y6 : tensor<%sxf32>, tensor<%sxf32>, tensor<%sxf32>, '
          'tensor<%sxf32>, tensor<%sxf32>, tensor<%sxf32>\n}'
          % (out, out8, y3, out4, y5, y6))


def fractions(rng, count):
    return [rng.randint(-15, 15) / 16 for _ in range(count)]


def weights():
    rng = random.Random(5)
    return {
        "wc": ("F32", [1, 1, C, F], fractions(rng, C * F)),
        "bc": ("F32", [F], fractions(rng, F)),
        "wk": ("F32", [3, 3, C, F], fractions(rng, 9 * C * F)),
        "bk": ("F32", [F], fractions(rng, F)),
        "w": ("F32", [K, N], fractions(rng, K * N)),
        "bw": ("F32", [N], fractions(rng, N)),
        "wp": ("F32", [3, 3, CS, FP], fractions(rng, 9 * CS * FP)),
        "bp": ("F32", [FP], fractions(rng, FP)),
        "wd": ("F32", [KD, KD], fractions(rng, KD * KD)),
        "bd": ("F32", [KD], fractions(rng, KD)),
    }


def write_inputs(folder, batch, seed):
    rng = random.Random(seed)
    write_npy(folder + "/img.npy", "<f4", [batch, H, H, C], fractions(rng, batch * H * H * C))
    write_npy(folder + "/res.npy", "<f4", [batch, H, H, F], fractions(rng, batch * H * H * F))
    write_npy(folder + "/im8.npy", "<f4", [batch, H8, H8, C], fractions(rng, batch * H8 * H8 * C))
    write_npy(folder + "/x.npy", "<f4", [batch, ROWS, K], fractions(rng, batch * ROWS * K))
    write_npy(folder + "/sm.npy", "<f4", [batch, HS, HS, CS], fractions(rng, batch * HS * HS * CS))
    write_npy(folder + "/xw.npy", "<f4", [batch, ROWS, KD], fractions(rng, batch * ROWS * KD))


def check(folder, out_path):
    w = {name: values for name, (_, _, values) in weights().items()}
    got = {name: values for name, (_, _, values) in read_safetensors(out_path).items()}
    img = read_npy_f32(folder + "/img.npy")
    res = read_npy_f32(folder + "/res.npy")
    x = read_npy_f32(folder + "/x.npy")
    batch = len(img) // (H * H * C)
    relu = lambda v: max(v, 0.0)
    c1 = conv_nhwc(img, batch, H, C, w["wc"], 1, F, 1, 0)
    im8 = read_npy_f32(folder + "/im8.npy")
    c2 = conv_nhwc(im8, batch, H8, C, w["wk"], 3, F, 1, 1)
    c5 = conv_nhwc(read_npy_f32(folder + "/sm.npy"), batch, HS, CS, w["wp"], 3, FP, 1, 1)
    m6 = matmul(read_npy_f32(folder + "/xw.npy"), w["wd"], KD, KD)
    want = {
        "y1": [relu(v + w["bc"][i % F] + res[i]) for i, v in enumerate(c1)],
        "y2": [relu(v + w["bk"][i % F]) for i, v in enumerate(c2)],
        "y3": [relu(v + w["bw"][i % N]) * 0.5 for i, v in enumerate(matmul(x, w["w"], K, N))],
        "y4": conv_nhwc(im8, batch, H8, C, w["wk"], 3, F, 2, 1),
        "y5": [relu(v + w["bp"][i % FP]) for i, v in enumerate(c5)],
        "y6": [relu(v + w["bd"][i % KD]) for i, v in enumerate(m6)],
    }
    check_exact("matmul epilogues", got, want)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "model":
        model(sys.argv[2])
    elif command == "weights":
        write_safetensors(sys.argv[2], weights())
    elif command == "inputs":
        write_inputs(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif command == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: matmul_epilogues.py model|weights|inputs|check ...")
