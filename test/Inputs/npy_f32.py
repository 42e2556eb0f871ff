"""The values of an f32 .npy file (version 1, little-endian, C order) as a
tuple, without numpy (lit's python3 may lack it)."""
import struct


def read_npy_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header_len:]
    return struct.unpack("<%df" % (len(body) // 4), body)
