"""References as plain loops over flat lists (no numpy: lit's python3 may
lack it), for the tests that compare compiled products exactly."""


def matmul(x, w, k, n):
    """Row-major x (rows x k) times w (k x n)."""
    rows = len(x) // k
    out = []
    for r in range(rows):
        row = x[r * k:(r + 1) * k]
        for j in range(n):
            out.append(sum(row[t] * w[t * n + j] for t in range(k)))
    return out


def conv_nhwc(img, batch, h, c, filt, kh, f, stride, pad):
    """A square NHWC image (batch x h x h x c) convolved with an HWIO filter
    (kh x kh x c x f), zero padding on every side."""
    oh = (h + 2 * pad - kh) // stride + 1
    out = []
    for b in range(batch):
        for y in range(oh):
            for x in range(oh):
                for o in range(f):
                    total = 0
                    for i in range(kh):
                        for j in range(kh):
                            yy, xx = y * stride + i - pad, x * stride + j - pad
                            if 0 <= yy < h and 0 <= xx < h:
                                base = ((b * h + yy) * h + xx) * c
                                for ch in range(c):
                                    total += img[base + ch] * filt[((i * kh + j) * c + ch) * f + o]
                    out.append(total)
    return out
