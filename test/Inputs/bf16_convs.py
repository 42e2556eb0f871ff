"""bf16 convolutions summed in f32 (a conv of two bf16 values widened by
rlx.cast, which rlx-accumulate-in-f32 makes of a bf16 conv), one per
lowering: im2col (3x3 stride 2, a dilated 3x3 followed by a relu, a 1x1 stride 2, and a 3x3
stride 3 of 3 channels: an odd K of 27, and with two images 18 rows, which
the kernel runs as 6-row tiles), pointwise (1x1 stride 1) and grouped (a
generic contraction), with their weights, inputs and plain-loop
references; no numpy (lit's python3 may lack it).

    bf16_convs.py model static|dyn|alldyn   prints the rlx MLIR (NHWC)
    bf16_convs.py weights FILE               writes the bf16 weights
    bf16_convs.py input FILE N H C SEED      writes an f32 [N, H, H, C] input
    bf16_convs.py check X.npy S.npy OUT.safetensors

x (8 channels) and s (3) are multiples of 1/8 of at most 2 in magnitude,
the weights multiples of 1/16 of at most 1 (w2's at most 1/2), all exact
in bf16. Every product of two of them is exact in f32, and every partial
sum is a multiple of 2^-11 below 2^13, so any order of summation gives the
exact sum: the outputs are compared exactly. y2 reads y1 rounded to bf16
(round to nearest even), as the model does.
"""
import random
import struct
import sys

from npy_f32 import check_exact, read_npy_f32, read_safetensors, write_npy, write_safetensors

# name: (shape HWIO, strides, padding, dilation, groups, input).
LAYERS = {
    "w1": ([3, 3, 8, 40], 2, 1, 1, 1, "x"),
    "w2": ([1, 1, 40, 24], 1, 0, 1, 1, "y1"),
    "w3": ([1, 1, 8, 16], 2, 0, 1, 1, "x"),
    "w4": ([3, 3, 8, 8], 1, 2, 2, 1, "x"),
    "w5": ([3, 3, 4, 8], 1, 1, 1, 2, "x"),
    "w6": ([3, 3, 3, 32], 3, 1, 1, 1, "s"),
}


# Outputs that are the relu of their conv: an epilogue the CPU fuses into
# the product's row tiles.
RELU = ("y4",)


def out_size(h, k, stride, pad, dil):
    return (h + 2 * pad - dil * (k - 1) - 1) // stride + 1


def model(mode):
    def act(h, c, element="f32"):
        if mode == "alldyn":
            return "tensor<?x?x?x%dx%s>" % (c, element)
        n = "2" if mode == "static" else "?"
        return "tensor<%sx%dx%dx%dx%s>" % (n, h, h, c, element)

    def image(c, element):
        if mode == "alldyn":
            return "tensor<?x?x?x?x%s>" % element
        return act(9, c, element)

    w = lambda name, element="bf16": "tensor<%sx%s>" % ("x".join(map(str, LAYERS[name][0])), element)
    results = {}
    for name, (shape, stride, pad, dil, groups, source) in LAYERS.items():
        h = 9 if source in ("x", "s") else 5
        results["y" + name[1]] = (out_size(h, shape[0], stride, pad, dil), shape[3])
    outs = ", ".join('%s {rlx.name = "%s"}' % (act(o, c), y) for y, (o, c) in results.items())
    print('func.func @f(%%x: %s {rlx.name = "x"}, %%s: %s {rlx.name = "s"}) -> (%s) {'
          % (image(8, "f32"), image(3, "f32"), outs))
    for v, c in (("x", 8), ("s", 3)):
        print("  %%%sb = rlx.cast %%%s : %s -> %s" % (v, v, image(c, "f32"), image(c, "bf16")))
        print("  %%%sw = rlx.cast %%%sb : %s -> %s" % (v, v, image(c, "bf16"), image(c, "f32")))
    widened = {"x": ("xw", image(8, "f32")), "s": ("sw", image(3, "f32"))}
    for name, (shape, stride, pad, dil, groups, source) in LAYERS.items():
        y = "y" + name[1]
        print('  %%%s = rlx.param "%s" : %s' % (name, name, w(name)))
        print("  %%%sw = rlx.cast %%%s : %s -> %s" % (name, name, w(name), w(name, "f32")))
        if source == "y1":
            o1, c1 = results["y1"]
            print("  %%y1b = rlx.cast %%y1 : %s -> %s" % (act(o1, c1), act(o1, c1, "bf16")))
            print("  %%y1w = rlx.cast %%y1b : %s -> %s" % (act(o1, c1, "bf16"), act(o1, c1)))
            widened["y1"] = ("y1w", act(o1, c1))
        operand, operand_type = widened[source]
        o, c = results[y]
        conv = y + "c" if y in RELU else y
        print("  %%%s = rlx.conv2d %%%s, %%%sw {strides = array<i64: %d, %d>, "
              "padding = array<i64: %d, %d, %d, %d>, dilations = array<i64: %d, %d>, "
              "groups = %d : i64} : (%s, %s) -> %s"
              % (conv, operand, name, stride, stride, pad, pad, pad, pad, dil, dil, groups,
                 operand_type, w(name, "f32"), act(o, c)))
        if y in RELU:
            print("  %%%s = rlx.relu %%%s : %s" % (y, conv, act(o, c)))
    print("  return %s : %s\n}" % (", ".join("%" + y for y in results),
                                   ", ".join(act(o, c) for o, c in results.values())))


def bf16_bits(v):
    """The bf16 pattern of a value exact in bf16."""
    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    assert bits & 0xFFFF == 0, v
    return bits >> 16


def bf16_round(v):
    """v (an f32 value) rounded to bf16, to nearest even."""
    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def weight_values():
    rng = random.Random(5)
    out = {}
    for name, (shape, *_rest) in LAYERS.items():
        count = shape[0] * shape[1] * shape[2] * shape[3]
        bound = 8 if name == "w2" else 16
        out[name] = (shape, [rng.randint(-bound, bound) / 16 for _ in range(count)])
    return out


def write_weights(path):
    write_safetensors(path, {name: ("BF16", shape, [bf16_bits(v) for v in values])
                             for name, (shape, values) in weight_values().items()})


def write_input(path, n, h, c, seed):
    rng = random.Random(seed)
    count = n * h * h * c
    write_npy(path, "<f4", [n, h, h, c], [rng.randint(-16, 16) / 8 for _ in range(count)])


def conv(x, n_, h, c, w, shape, stride, pad, dil, groups):
    """NHWC x (flat, square images) by HWIO w (flat), zero padded."""
    kh, kw, cg, f = shape
    o = out_size(h, kh, stride, pad, dil)
    fg = f // groups
    y = []
    for n in range(n_):
        for i in range(o):
            for j in range(o):
                for m in range(f):
                    g, acc = m // fg, 0.0
                    for a in range(kh):
                        r = i * stride + a * dil - pad
                        if not 0 <= r < h:
                            continue
                        for b in range(kw):
                            s = j * stride + b * dil - pad
                            if not 0 <= s < h:
                                continue
                            base = ((n * h + r) * h + s) * c + g * cg
                            for k in range(cg):
                                acc += x[base + k] * w[((a * kw + b) * cg + k) * f + m]
                    y.append(acc)
    return y, o


def check(x_path, s_path, out_path):
    ws = weight_values()
    inputs = {"x": (read_npy_f32(x_path), 8), "s": (read_npy_f32(s_path), 3)}
    n = len(inputs["x"][0]) // (81 * 8)
    sizes = {"x": 9, "s": 9}
    want = {}
    for name, (shape, stride, pad, dil, groups, source) in LAYERS.items():
        if source == "y1":
            values, c = [bf16_round(v) for v in want["y1"]], LAYERS["w1"][0][3]
        else:
            values, c = inputs[source]
        y, o = conv(values, n, sizes[source], c, ws[name][1], shape, stride, pad, dil, groups)
        if "y" + name[1] in RELU:
            y = [max(v, 0.0) for v in y]
        want["y" + name[1]] = y
        sizes["y" + name[1]] = o
    got = {name: values for name, (_, _, values) in read_safetensors(out_path).items()}
    check_exact("bf16 convs", got, want)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "model":
        model(sys.argv[2])
    elif command == "weights":
        write_weights(sys.argv[2])
    elif command == "input":
        write_input(sys.argv[2], *map(int, sys.argv[3:7]))
    elif command == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("unknown command " + command)
