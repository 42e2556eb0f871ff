"""Plain-loop references of ONNX's windowed ops for any number of spatial
dims (NC... layout, pads as ONNX writes them: all begins, then all ends),
in f64. They loop over output positions and kernel taps directly, so they
share nothing with the importer's splitting of 3-D windows into 2-D ones."""
import itertools

import numpy as np


def _pad(x, begins, ends, value):
    return np.pad(x.astype(np.float64),
                  [(0, 0), (0, 0)] + list(zip(begins, ends)),
                  constant_values=value)


def conv_nd(x, w, b=None, strides=None, pads=None, dil=None, group=1):
    dims = x.ndim - 2
    strides = strides or (1,) * dims
    dil = dil or (1,) * dims
    pads = pads or (0,) * (2 * dims)
    xp = _pad(x, pads[:dims], pads[dims:], 0.0)
    f, cg = w.shape[:2]
    kernel = w.shape[2:]
    out = [(xp.shape[2 + i] - dil[i] * (kernel[i] - 1) - 1) // strides[i] + 1
           for i in range(dims)]
    y = np.zeros((x.shape[0], f) + tuple(out))
    fg = f // group
    for o in range(f):
        g = o // fg
        for pos in itertools.product(*[range(n) for n in out]):
            acc = np.zeros(x.shape[0])
            for tap in itertools.product(*[range(k) for k in kernel]):
                at = tuple(pos[i] * strides[i] + tap[i] * dil[i]
                           for i in range(dims))
                acc += xp[(slice(None), slice(g * cg, (g + 1) * cg)) + at] @ \
                    w[(o, slice(None)) + tap].astype(np.float64)
            y[(slice(None), o) + pos] = acc
    if b is not None:
        y += b.reshape((1, -1) + (1,) * dims)
    return y


def conv_transpose_nd(x, w, b=None, strides=None, dil=None, group=1,
                      begins=None, out=None):
    """Every input element scattered through the kernel into the full
    output (stride * (in - 1) + dilation * (k - 1) + 1 per dim), then the
    window [begin, begin + out) of it, zeros where the window leaves the
    full output (negative begins, or an `out` past its end)."""
    dims = x.ndim - 2
    strides = strides or (1,) * dims
    dil = dil or (1,) * dims
    c = x.shape[1]
    fg = w.shape[1]
    kernel = w.shape[2:]
    cg = c // group
    full_size = [strides[i] * (x.shape[2 + i] - 1) + dil[i] * (kernel[i] - 1)
                 + 1 for i in range(dims)]
    full = np.zeros((x.shape[0], fg * group) + tuple(full_size))
    for ci in range(c):
        g = ci // cg
        for f in range(fg):
            for pos in itertools.product(*[range(n) for n in x.shape[2:]]):
                for tap in itertools.product(*[range(k) for k in kernel]):
                    at = tuple(pos[i] * strides[i] + tap[i] * dil[i]
                               for i in range(dims))
                    full[(slice(None), g * fg + f) + at] += \
                        x[(slice(None), ci) + pos] * w[(ci, f) + tap]
    y = np.zeros((x.shape[0], fg * group) + tuple(out))
    for pos in itertools.product(*[range(n) for n in out]):
        at = tuple(pos[i] + begins[i] for i in range(dims))
        if all(0 <= at[i] < full_size[i] for i in range(dims)):
            y[(slice(None), slice(None)) + pos] = full[(slice(None), slice(None)) + at]
    if b is not None:
        y += b.reshape((1, -1) + (1,) * dims)
    return y


def pool_nd(x, kernel, strides, pads, kind, include_pad=False, ceil=False,
            dil=None):
    dims = x.ndim - 2
    dil = dil or (1,) * dims
    size = x.shape[2:]
    out = []
    for i in range(dims):
        span = size[i] + pads[i] + pads[dims + i] - dil[i] * (kernel[i] - 1) - 1
        out.append((-(-span // strides[i]) if ceil else span // strides[i]) + 1)
    y = np.zeros(x.shape[:2] + tuple(out))
    for pos in itertools.product(*[range(n) for n in out]):
        values, count = [], 0
        for tap in itertools.product(*[range(k) for k in kernel]):
            at = tuple(pos[i] * strides[i] + tap[i] * dil[i] - pads[i]
                       for i in range(dims))
            inside = all(0 <= at[i] < size[i] for i in range(dims))
            # Windows past the input's end (ceil_mode) count no padding.
            in_padding = all(-pads[i] <= at[i] < size[i] + pads[dims + i]
                             for i in range(dims))
            if inside:
                values.append(x[(slice(None), slice(None)) + at].astype(np.float64))
            count += inside or (include_pad and in_padding)
        stacked = np.stack(values)
        y[(slice(None), slice(None)) + pos] = (
            stacked.max(axis=0) if kind == "max" else stacked.sum(axis=0) / count)
    return y
