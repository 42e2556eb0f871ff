#!/usr/bin/env python3
"""Block-scaled (MX) weights: a dense layer y = x @ W with W as f32, MXFP8, MXINT8
and MXFP4, in rlx, against ONNX Runtime's f32 MatMul and its 4-bit
weight-only MatMulNBits, side by side.

- rlx f32: W a param, prepacked into the f32 kernel's panels once per
  binding (4 bytes per weight at run time);
- rlx mxfp8 / mxfp4: W as f8E4M3FN codes (safetensors F8_E4M3) or f4E2M1FN
  codes one per byte (U8), with one f8E8M0FNU scale per 32 rows (F8_E8M0),
  dequantized by rlx.block_dequantize; the f32 kernel reads the codes and
  scales packed and decodes each panel's K block in cache (about 1 byte per
  weight at run time);
- rlx mxint8: i8 codes (MXINT8) with the same scales;
- rlx int4: the same int4 weight ONNX Runtime's MatMulNBits gets below
  (codes -8..7 one per byte, U8 cast to i4, an f32 scale per 32 rows);
- ORT f32: MatMul by an f32 initializer; ORT nbits: com.microsoft
  MatMulNBits, 4-bit codes two per byte with an f32 scale per 32 rows
  (ONNX Runtime's weight-only quantized matmul for LLMs), accuracy_level 0
  (f32 compute) and 4 (activations quantized to int8).

Each rlx MX result is checked against numpy's product of the dequantized
weight (the maximum difference relative to the largest output).

Usage: mx_matmul.py BIN_DIR [--threads 1,2] [--calls N] [--sizes 4096x4096]
                    [--rows 1,16,128]
Prints `K N M threads variant ms bytes/weight ratio` (ratio = rlx / ORT
nbits for MX, rlx / ORT f32 for f32; lower is better)."""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

from onnx_inference import ort_ms, ort_session, rlx_ms

BLOCK = 32


def e4m3fn_values():
    """The value of every f8E4M3FN code (NaN codes 0x7F/0xFF as nan)."""
    values = np.zeros(256, np.float64)
    for code in range(256):
        e, m = (code >> 3) & 15, code & 7
        magnitude = m * 2.0 ** -9 if e == 0 else (8 + m) * 2.0 ** (e - 10)
        values[code] = -magnitude if code & 0x80 else magnitude
        if code & 0x7F == 0x7F:
            values[code] = np.nan
    return values


def e2m1fn_values():
    values = np.zeros(16, np.float64)
    for code in range(16):
        e, m = (code >> 1) & 3, code & 1
        magnitude = 0.5 * m if e == 0 else (2 + m) * 2.0 ** (e - 2)
        values[code] = -magnitude if code & 8 else magnitude
    return values


def write_safetensors(path, tensors):
    """tensors: name -> (dtype string, shape, bytes)."""
    header, offset, blobs = {}, 0, []
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for blob in blobs:
            f.write(blob)


def rlx_model(variant, k, n, m):
    x = "tensor<%dx%dxf32>" % (m, k)
    y = "tensor<%dx%dxf32>" % (m, n)
    w = "tensor<%dx%dxf32>" % (k, n)
    s = "tensor<%dx%dxf8E8M0FNU>" % (k // BLOCK, n)
    lines = ['func.func @f(%%x: %s {rlx.name = "x"}) -> (%s {rlx.name = "y"}) {' % (x, y)]
    if variant == "f32":
        lines.append('  %%d = rlx.param "w" : %s' % w)
    else:
        if variant == "mxfp8":
            codes, t = "%w", "f8E4M3FN"
            lines.append('  %%w = rlx.param "w" : tensor<%dx%dxf8E4M3FN>' % (k, n))
        elif variant == "mxint8":
            codes, t = "%i", "i8"
            lines.append('  %%u = rlx.param "w" : tensor<%dx%dxui8>' % (k, n))
            lines.append('  %%i = rlx.cast %%u : tensor<%dx%dxui8> -> tensor<%dx%dxi8>' % (k, n, k, n))
        elif variant == "int4":
            codes, t = "%i", "i4"
            s = "tensor<%dx%dxf32>" % (k // BLOCK, n)
            lines.append('  %%u = rlx.param "w" : tensor<%dx%dxui8>' % (k, n))
            lines.append('  %%i = rlx.cast %%u : tensor<%dx%dxui8> -> tensor<%dx%dxi4>' % (k, n, k, n))
        else:
            codes, t = "%c", "f4E2M1FN"
            lines.append('  %%u = rlx.param "w" : tensor<%dx%dxui8>' % (k, n))
            lines.append('  %%i = rlx.cast %%u : tensor<%dx%dxui8> -> tensor<%dx%dxi4>' % (k, n, k, n))
            lines.append('  %%c = rlx.bitcast %%i : tensor<%dx%dxi4> -> tensor<%dx%dxf4E2M1FN>' % (k, n, k, n))
        lines.append('  %%s = rlx.param "s" : %s' % s)
        lines.append('  %%d = rlx.block_dequantize %s, %%s {axis = 0, block_size = %d} : '
                     'tensor<%dx%dx%s>, %s -> %s' % (codes, BLOCK, k, n, t, s, w))
    lines.append('  %%y = rlx.matmul %%x, %%d : (%s, %s) -> %s' % (x, w, y))
    lines.append('  return %%y : %s' % y)
    lines.append('}')
    return "\n".join(lines) + "\n"


def ort_nbits_model(path, k, n, codes4, scales, accuracy_level):
    """MatMulNBits: B [N, K/32, 16] bytes, two codes per byte, low nibble
    first; unsigned codes with the default zero point 8."""
    import onnx
    from onnx import TensorProto, helper
    unsigned = codes4.T.astype(np.uint8)  # [N, K], q + 8 in 0..15
    packed = (unsigned[:, 0::2] | (unsigned[:, 1::2] << 4)).reshape(n, k // BLOCK, BLOCK // 2)
    node = helper.make_node("MatMulNBits", ["x", "b", "scales"], ["y"], domain="com.microsoft",
                            K=k, N=n, bits=4, block_size=BLOCK, accuracy_level=accuracy_level)
    graph = helper.make_graph(
        [node], "nbits",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["m", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["m", n])],
        [numpy_helper_tensor("b", packed), numpy_helper_tensor("scales", scales.T.reshape(-1))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                     helper.make_opsetid("com.microsoft", 1)])
    onnx.save(model, path)


def numpy_helper_tensor(name, array):
    from onnx import numpy_helper
    return numpy_helper.from_array(array, name)


def ort_f32_model(path, w):
    import onnx
    from onnx import TensorProto, helper
    k, n = w.shape
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "f32",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["m", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["m", n])],
        [numpy_helper_tensor("w", w)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def rlx_output(bin_dir, artifact, weights, x_path, out):
    subprocess.run([os.path.join(bin_dir, "rlx-run"), artifact, "--weights", weights,
                    "--input", "x=" + x_path, "--output", out],
                   capture_output=True, check=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--sizes", default="4096x4096")
    parser.add_argument("--rows", default="1,16,128")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    work = tempfile.mkdtemp(prefix="rlx-mx-")
    print("K N M threads variant ms bytes/weight ratio err")
    for size in args.sizes.split(","):
        k, n = (int(v) for v in size.split("x"))
        # MXFP8 codes without NaNs; MXFP4 codes; scales 2^-4..2^0.
        codes8 = rng.integers(0, 256, (k, n), dtype=np.uint8)
        codes8[(codes8 & 0x7F) == 0x7F] = 0
        codes4 = rng.integers(0, 16, (k, n), dtype=np.uint8)
        scales = rng.integers(123, 128, (k // BLOCK, n), dtype=np.uint8)
        scale_values = np.repeat(2.0 ** (scales.astype(np.float64) - 127), BLOCK, axis=0)
        dense8 = (e4m3fn_values()[codes8] * scale_values).astype(np.float32)
        dense4 = (e2m1fn_values()[codes4] * scale_values).astype(np.float32)
        weights = {
            "f32": {"w": ("F32", (k, n), dense4.tobytes())},
            "mxfp8": {"w": ("F8_E4M3", (k, n), codes8.tobytes()),
                      "s": ("F8_E8M0", scales.shape, scales.tobytes())},
            "mxfp4": {"w": ("U8", (k, n), codes4.tobytes()),
                      "s": ("F8_E8M0", scales.shape, scales.tobytes())},
        }
        dense = {"f32": dense4, "mxfp8": dense8, "mxfp4": dense4}
        # MXINT8: i8 codes (two's complement) with the same E8M0 scales.
        codes_i8 = rng.integers(-128, 128, (k, n)).astype(np.int8)
        weights["mxint8"] = {"w": ("U8", (k, n), codes_i8.astype(np.uint8).tobytes()),
                             "s": ("F8_E8M0", scales.shape, scales.tobytes())}
        dense["mxint8"] = (codes_i8 * scale_values).astype(np.float32)
        # int4: ONNX Runtime's MatMulNBits weight (q in -8..7, f32 scales).
        q = rng.integers(-8, 8, (k, n)).astype(np.int8)
        nbits_scales = (2.0 ** (scales.astype(np.float64) - 127)).astype(np.float32)
        weights["int4"] = {"w": ("U8", (k, n), (q.astype(np.uint8) & 15).tobytes()),
                           "s": ("F32", scales.shape, nbits_scales.tobytes())}
        dense["int4"] = (q * np.repeat(nbits_scales, BLOCK, axis=0)).astype(np.float32)
        bytes_per_weight = {"f32": 4.0, "mxfp8": 1 + 1 / BLOCK, "mxfp4": 1 + 1 / BLOCK,
                            "mxint8": 1 + 1 / BLOCK,
                            "int4": 1 + 4 / BLOCK}
        ort_f32_model(os.path.join(work, "f32.onnx"), dense4)
        for level in (0, 4):
            ort_nbits_model(os.path.join(work, "nbits%d.onnx" % level), k, n,
                            (q + 8).astype(np.uint8), nbits_scales, level)
        for variant, tensors in weights.items():
            write_safetensors(os.path.join(work, variant + ".safetensors"), tensors)
        for m in (int(v) for v in args.rows.split(",")):
            x = rng.standard_normal((m, k)).astype(np.float32)
            x_path = os.path.join(work, "x.npy")
            np.save(x_path, x)
            artifacts = {}
            for variant in weights:
                src = os.path.join(work, "%s_%d.mlir" % (variant, m))
                with open(src, "w") as f:
                    f.write(rlx_model(variant, k, n, m))
                artifacts[variant] = src[:-5] + ".so"
                subprocess.run([os.path.join(args.bin_dir, "rlxc"), src, "-o", artifacts[variant]],
                               check=True)
            for threads in (int(t) for t in args.threads.split(",")):
                ort = {name: ort_ms(ort_session(os.path.join(work, name + ".onnx"), threads),
                                    x, args.calls)
                       for name in ("f32", "nbits0", "nbits4")}
                for name, ms in ort.items():
                    print("%d %d %d %d ort-%s %.3f %s -" % (
                        k, n, m, threads, name, ms, "4" if name == "f32" else "0.53"))
                for variant, artifact in artifacts.items():
                    weights_path = os.path.join(work, variant + ".safetensors")
                    ms = rlx_ms(args.bin_dir, artifact, weights_path, x_path, threads, args.calls)
                    out = os.path.join(work, "y.npy")
                    rlx_output(args.bin_dir, artifact, weights_path, x_path, out)
                    want = x.astype(np.float64) @ dense[variant].astype(np.float64)
                    err = np.max(np.abs(np.load(out) - want)) / np.max(np.abs(want))
                    peer = ort["f32"] if variant == "f32" else min(ort["nbits0"], ort["nbits4"])
                    print("%d %d %d %d rlx-%s %.3f %.2f %.2f %.1e" % (
                        k, n, m, threads, variant, ms, bytes_per_weight[variant], ms / peer, err))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
