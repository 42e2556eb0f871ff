"""A model of padded 3x3 convs with 64 input channels, which the CPU runs
as products per filter tap (rlx-cpu-conv-tap-products), its weights,
inputs, and its reference as plain loops (no numpy: lit's python3 may lack
it).

    conv_taps.py model static|dyn|alldyn   prints the rlx MLIR
    conv_taps.py weights FILE               writes the weights
    conv_taps.py inputs DIR BATCH SEED      writes x.npy into DIR
    conv_taps.py check DIR OUT.safetensors

Outputs, all of x [B, 6, 6, 64]: y1 = relu(conv3x3(x, wp, padding 1) +
bp), wp [3, 3, 64, 128] (288 KiB: the CPU prepacks it into panels, and the
taps read slices of the panels), then bias and relu; y2 = conv3x3(x, wp,
stride 2, padding 1), strided taps; y3 = conv3x3(x, wf, padding 1), wf
[3, 3, 64, 40] (90 KiB, not prepacked: the taps read columns of the filter
matrix, one group of 40). Values are multiples of 1/16 below 1: every
product and sum is exact in f32, so outputs are compared exactly.
"""
import random
import sys

from npy_f32 import check_exact, read_npy_f32, read_safetensors, write_npy, write_safetensors
from plain_loops import conv_nhwc

H, C = 6, 64      # x [B, H, H, C]
FP, FF = 128, 40  # output channels of wp and wf


def model(mode):
    x = {"static": "2x6x6x64", "dyn": "?x6x6x64", "alldyn": "?x?x?x64"}[mode]
    prefix = x[: x.rindex("x") + 1]
    strided_prefix = {"static": "2x3x3x", "dyn": "?x3x3x", "alldyn": "?x?x?x"}[mode]
    y1, y2, y3 = prefix + str(FP), strided_prefix + str(FP), prefix + str(FF)
    conv = "strides = array<i64: %d, %d>, padding = array<i64: 1, 1, 1, 1>"
    print('func.func @f(%%x: tensor<%sxf32> {rlx.name = "x"}) -> '
          '(tensor<%sxf32> {rlx.name = "y1"}, tensor<%sxf32> {rlx.name = "y2"}, '
          'tensor<%sxf32> {rlx.name = "y3"}) {' % (x, y1, y2, y3))
    print('  %%wp = rlx.param "wp" : tensor<3x3x%dx%dxf32>' % (C, FP))
    print('  %%bp = rlx.param "bp" : tensor<%dxf32>' % FP)
    print('  %%wf = rlx.param "wf" : tensor<3x3x%dx%dxf32>' % (C, FF))
    print('  %%c1 = rlx.conv2d %%x, %%wp {%s} : (tensor<%sxf32>, tensor<3x3x%dx%dxf32>) -> tensor<%sxf32>'
          % (conv % (1, 1), x, C, FP, y1))
    print('  %%b1 = rlx.add %%c1, %%bp : (tensor<%sxf32>, tensor<%dxf32>) -> tensor<%sxf32>' % (y1, FP, y1))
    print('  %%y1 = rlx.relu %%b1 : tensor<%sxf32>' % y1)
    print('  %%y2 = rlx.conv2d %%x, %%wp {%s} : (tensor<%sxf32>, tensor<3x3x%dx%dxf32>) -> tensor<%sxf32>'
          % (conv % (2, 2), x, C, FP, y2))
    print('  %%y3 = rlx.conv2d %%x, %%wf {%s} : (tensor<%sxf32>, tensor<3x3x%dx%dxf32>) -> tensor<%sxf32>'
          % (conv % (1, 1), x, C, FF, y3))
    print('  return %%y1, %%y2, %%y3 : tensor<%sxf32>, tensor<%sxf32>, tensor<%sxf32>\n}' % (y1, y2, y3))


def fractions(rng, count):
    return [rng.randint(-15, 15) / 16 for _ in range(count)]


def weights():
    rng = random.Random(7)
    return {
        "wp": ("F32", [3, 3, C, FP], fractions(rng, 9 * C * FP)),
        "bp": ("F32", [FP], fractions(rng, FP)),
        "wf": ("F32", [3, 3, C, FF], fractions(rng, 9 * C * FF)),
    }


def check(folder, out_path):
    w = {name: values for name, (_, _, values) in weights().items()}
    got = {name: values for name, (_, _, values) in read_safetensors(out_path).items()}
    x = read_npy_f32(folder + "/x.npy")
    batch = len(x) // (H * H * C)
    c1 = conv_nhwc(x, batch, H, C, w["wp"], 3, FP, 1, 1)
    want = {
        "y1": [max(v + w["bp"][i % FP], 0.0) for i, v in enumerate(c1)],
        "y2": conv_nhwc(x, batch, H, C, w["wp"], 3, FP, 2, 1),
        "y3": conv_nhwc(x, batch, H, C, w["wf"], 3, FF, 1, 1),
    }
    check_exact("conv taps", got, want)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "model":
        model(sys.argv[2])
    elif command == "weights":
        write_safetensors(sys.argv[2], weights())
    elif command == "inputs":
        rng = random.Random(int(sys.argv[4]))
        batch = int(sys.argv[3])
        write_npy(sys.argv[2] + "/x.npy", "<f4", [batch, H, H, C], fractions(rng, batch * H * H * C))
    elif command == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: conv_taps.py model|weights|inputs|check ...")
