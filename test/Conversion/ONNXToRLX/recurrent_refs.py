"""Plain-loop references of ONNX's RNN, GRU and LSTM in f64, written from
the operator spec: one time step at a time, each batch row up to its own
sequence length (the rest of its Y zero, its state kept), the reverse
direction walking each row back from its own last element."""
import numpy as np

ACTIVATIONS = {
    "Sigmoid": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "Tanh": lambda x, a, b: np.tanh(x),
    "Relu": lambda x, a, b: np.maximum(x, 0),
    "Affine": lambda x, a, b: a * x + b,
    "LeakyRelu": lambda x, a, b: np.where(x > 0, x, a * x),
    "ThresholdedRelu": lambda x, a, b: np.where(x > a, x, 0),
    "ScaledTanh": lambda x, a, b: a * np.tanh(b * x),
    "HardSigmoid": lambda x, a, b: np.clip(a * x + b, 0, 1),
    "Elu": lambda x, a, b: np.where(x > 0, x, a * (np.exp(x) - 1)),
    "Softsign": lambda x, a, b: x / (1 + np.abs(x)),
    "Softplus": lambda x, a, b: np.log1p(np.exp(x)),
}
DEFAULT_ALPHA = {"LeakyRelu": 0.01, "HardSigmoid": 0.2}
DEFAULT_BETA = {"HardSigmoid": 0.5, "ScaledTanh": 1.0}
TAKES_ALPHA = {"Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh",
               "HardSigmoid", "Elu"}
TAKES_BETA = {"Affine", "ScaledTanh", "HardSigmoid"}


def _functions(names, alphas, betas):
    alphas, betas = list(alphas), list(betas)
    fns = []
    for n in names:
        a = alphas.pop(0) if n in TAKES_ALPHA and alphas else DEFAULT_ALPHA.get(n, 1.0)
        b = betas.pop(0) if n in TAKES_BETA and betas else DEFAULT_BETA.get(n, 0.0)
        fns.append(lambda x, n=n, a=a, b=b: ACTIVATIONS[n](x, a, b))
    return fns


def recurrent(cell, X, W, R, B=None, lens=None, h0=None, c0=None, P=None,
              direction="forward", layout=0, clip=None, activations=None,
              alphas=(), betas=(), linear_before_reset=0, input_forget=0):
    """Returns (Y, Y_h) for RNN and GRU, (Y, Y_h, Y_c) for LSTM."""
    X = X.astype(np.float64)
    if layout:
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    T, batch, _ = X.shape
    dirs = 2 if direction == "bidirectional" else 1
    H = R.shape[-1]
    per = {"RNN": 1, "GRU": 2, "LSTM": 3}[cell]
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[cell]
    default = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
               "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[cell]
    fns = _functions(activations or default * dirs, alphas, betas)
    lens = np.full(batch, T) if lens is None else lens
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    Y = np.zeros((T, dirs, batch, H))
    Yh = np.zeros((dirs, batch, H))
    Yc = np.zeros((dirs, batch, H))
    for d in range(dirs):
        f = fns[d * per:(d + 1) * per]
        w, r = W[d].astype(np.float64), R[d].astype(np.float64)
        b = np.zeros(2 * gates * H) if B is None else B[d].astype(np.float64)
        wb, rb = b[:gates * H], b[gates * H:]
        p = np.zeros(3 * H) if P is None else P[d].astype(np.float64)
        reverse = direction == "reverse" or d == 1
        for n in range(batch):
            h = np.zeros(H) if h0 is None else h0[d, n].astype(np.float64)
            c = np.zeros(H) if c0 is None else c0[d, n].astype(np.float64)
            steps = range(lens[n])
            for t in (reversed(steps) if reverse else steps):
                xw = w @ X[t, n] + wb
                hr = r @ h + rb
                if cell == "RNN":
                    h = f[0](cl(xw + hr))
                elif cell == "GRU":
                    z = f[0](cl(xw[:H] + hr[:H]))
                    rr = f[0](cl(xw[H:2 * H] + hr[H:2 * H]))
                    if linear_before_reset:
                        cand = xw[2 * H:] + rr * hr[2 * H:]
                    else:
                        cand = xw[2 * H:] + r[2 * H:] @ (rr * h) + rb[2 * H:]
                    cand = f[1](cl(cand))
                    h = (1 - z) * cand + z * h
                else:
                    g = xw + hr
                    i = f[0](cl(g[:H] + p[:H] * c))
                    fg = 1 - i if input_forget else \
                        f[0](cl(g[2 * H:3 * H] + p[2 * H:] * c))
                    c = fg * c + i * f[1](cl(g[3 * H:]))
                    o = f[0](cl(g[H:2 * H] + p[H:2 * H] * c))
                    h = o * f[2](c)
                Y[t, d, n] = h
            Yh[d, n], Yc[d, n] = h, c
    if layout:
        Y = Y.transpose(2, 0, 1, 3)
        Yh, Yc = Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    return (Y, Yh, Yc) if cell == "LSTM" else (Y, Yh)
