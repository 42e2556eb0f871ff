"""JAX and PyTorch references for rlx-bench-scan (bench/scan_lstm.cpp).

- scan_step_us: JAX's lax.scan, 10,000 steps of h <- h * 0.999 + 0.001 on a
  16-float carry, jitted; microseconds per step.
- lstm_fwd_bwd_ms: a one-layer LSTM, input and hidden 256, batch 32, 100
  steps, loss mean(ys^2), forward and backward w.r.t. the weights and the
  inputs: PyTorch's nn.LSTM (faster of 1 and 2 threads) and a JAX LSTM
  written with lax.scan (jitted value_and_grad).
Prints `<framework> <name> <value>` lines; a framework that does not import
is left out.
"""
import sys
import time


def median_ms(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


T, B, H = 100, 32, 256


def jax_figures(reps):
    import jax
    import jax.numpy as jnp

    steps = 10000

    @jax.jit
    def overhead(h):
        def body(c, _):
            return c * 0.999 + 0.001, None
        return jax.lax.scan(body, h, None, length=steps)[0]

    h = jnp.linspace(-1, 1, 16, dtype=jnp.float32)
    ms = median_ms(lambda: overhead(h).block_until_ready(), reps)
    print(f"jax scan_step_us {ms * 1000 / steps:.4f}")

    def loss(params, xs, h0, c0):
        w_ih, w_hh, b = params
        proj = xs @ w_ih + b

        def step(carry, x):
            h, c = carry
            g = x + h @ w_hh
            i = jax.nn.sigmoid(g[:, :H])
            f = jax.nn.sigmoid(g[:, H:2 * H])
            gg = jnp.tanh(g[:, 2 * H:3 * H])
            o = jax.nn.sigmoid(g[:, 3 * H:])
            c = f * c + i * gg
            h = o * jnp.tanh(c)
            return (h, c), h

        _, ys = jax.lax.scan(step, (h0, c0), proj)
        return jnp.mean(ys * ys)

    grad = jax.jit(jax.value_and_grad(loss, argnums=(0, 1)))
    key = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(key, 3)
    params = (0.05 * jax.random.normal(k1, (H, 4 * H)),
              0.05 * jax.random.normal(k2, (H, 4 * H)),
              jnp.zeros((4 * H,)))
    xs = jax.random.normal(k3, (T, B, H))
    h0 = jnp.zeros((B, H))
    c0 = jnp.zeros((B, H))
    ms = median_ms(lambda: jax.block_until_ready(grad(params, xs, h0, c0)),
                   max(3, reps // 4))
    print(f"jax lstm_fwd_bwd_ms {ms:.3f}")


def torch_figures(reps):
    import torch

    best = None
    for threads in (1, 2):
        torch.set_num_threads(threads)
        torch.manual_seed(0)
        lstm = torch.nn.LSTM(H, H)
        xs = torch.randn(T, B, H, requires_grad=True)
        h0 = torch.zeros(1, B, H)
        c0 = torch.zeros(1, B, H)

        def step():
            lstm.zero_grad()
            xs.grad = None
            ys, _ = lstm(xs, (h0, c0))
            loss = (ys * ys).mean()
            loss.backward()

        ms = median_ms(step, max(3, reps // 4))
        best = ms if best is None else min(best, ms)
    print(f"torch lstm_fwd_bwd_ms {best:.3f}")


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for figures in (torch_figures, jax_figures):
        try:
            figures(reps)
        except ImportError:
            pass


if __name__ == "__main__":
    main()
