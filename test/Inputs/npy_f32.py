"""Test files without numpy (lit's python3 may lack it): the values of an
f32 .npy file (version 1, little-endian, C order) as a tuple, .npy files of
f32 or i8, and safetensors files of F32, I32, I8, BF16 tensors and of the
byte codes F8_E4M3, F8_E8M0 and U8."""
import json
import struct
import sys


def read_npy_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header_len:]
    return struct.unpack("<%df" % (len(body) // 4), body)


def write_safetensors_f32(path, tensors):
    """tensors: name -> (shape, values), written as F32 in that order."""
    write_safetensors(path, {name: ("F32", shape, values)
                             for name, (shape, values) in tensors.items()})


# struct codes of the dtypes these tests write; BF16 values are given as
# their 16-bit patterns, F8_E4M3 and F8_E8M0 as their byte codes.
_CODES = {"F32": "f", "I32": "i", "I8": "b", "BF16": "H", "U8": "B",
          "F8_E4M3": "B", "F8_E8M0": "B"}


def write_safetensors(path, tensors):
    """tensors: name -> (dtype, shape, values), dtype one of _CODES."""
    header, body = {}, b""
    for name, (dtype, shape, values) in tensors.items():
        data = struct.pack("<%d%s" % (len(values), _CODES[dtype]), *values)
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [len(body), len(body) + len(data)]}
        body += data
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + body)


def read_safetensors(path):
    """name -> (dtype, shape, values) of every tensor in the file."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        lo, hi = entry["data_offsets"]
        raw = data[8 + length + lo:8 + length + hi]
        code = _CODES[entry["dtype"]]
        count = len(raw) // struct.calcsize(code)
        tensors[name] = (entry["dtype"], entry["shape"],
                         struct.unpack("<%d%s" % (count, code), raw))
    return tensors


def write_npy(path, descr, shape, values):
    """An .npy of `values`, descr '<f4' (f32) or '|i1' (i8)."""
    code = {"<f4": "f", "|i1": "b"}[descr]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s,), }" % (
        descr, ", ".join(str(d) for d in shape))
    header += " " * (-(len(header) + 11) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                header.encode())
        f.write(struct.pack("<%d%s" % (len(values), code), *values))


def check_exact(label, got, want):
    """Exits 1 naming the first differing values of an output of `want`
    (name -> values) that `got` (name -> values) does not hold exactly;
    else prints that all are exact."""
    for name, values in want.items():
        if list(got[name]) != values:
            bad = [i for i, (a, b) in enumerate(zip(got[name], values)) if a != b]
            print("%s differs (%d vs %d values) at %s: got %s, want %s" % (
                name, len(got[name]), len(values), bad[:5],
                [got[name][i] for i in bad[:5]], [values[i] for i in bad[:5]]))
            sys.exit(1)
    print("%s: all %d outputs exact" % (label, len(want)))
