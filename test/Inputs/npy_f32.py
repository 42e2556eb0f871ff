"""f32 test files without numpy (lit's python3 may lack it): the values of
an .npy file (version 1, little-endian, C order) as a tuple, and a
safetensors file written from named f32 tensors."""
import json
import struct


def read_npy_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header_len:]
    return struct.unpack("<%df" % (len(body) // 4), body)


def write_safetensors_f32(path, tensors):
    """tensors: name -> (shape, values), written as F32 in that order."""
    header, body = {}, b""
    for name, (shape, values) in tensors.items():
        data = struct.pack("<%df" % len(values), *values)
        header[name] = {"dtype": "F32", "shape": list(shape),
                        "data_offsets": [len(body), len(body) + len(data)]}
        body += data
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + body)
