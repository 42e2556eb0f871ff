"""PyTorch eager and JAX jit references for bench/run-all.sh.

Times the same workloads as rlx-bench-mlp and rlx-bench-elementwise:
MLP 784-512-512-10 (ReLU, softmax cross entropy) forward at batch 128 and
1024, forward+backward and an Adam step at batch 128, and
sum(gelu(x*w+b)) over 16M f32. PyTorch runs with 1 and 2 threads and the
faster is kept (its best is the figure to beat); JAX runs where it imports.
Prints `<framework> <name> <ms>` lines. Run with a Python that sees
python3-torch (Debian's /usr/bin/python3) and, optionally, jax.
"""
import sys
import time


def median_ms(fn, reps=30):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def torch_figures():
    import torch
    import torch.nn.functional as F

    def run(threads):
        torch.set_num_threads(threads)
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Linear(784, 512), torch.nn.ReLU(),
            torch.nn.Linear(512, 512), torch.nn.ReLU(),
            torch.nn.Linear(512, 10))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        x128, x1024 = torch.randn(128, 784), torch.randn(1024, 784)
        y128 = torch.arange(128) % 10
        figures = {}
        with torch.no_grad():
            figures["forward_b128"] = median_ms(lambda: model(x128))
            figures["forward_b1024"] = median_ms(lambda: model(x1024))

        def forward_backward():
            model.zero_grad(set_to_none=True)
            F.cross_entropy(model(x128), y128).backward()

        def step():
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(x128), y128).backward()
            opt.step()

        def autocast_step():
            # Mixed precision as PyTorch does it on CPU: the forward (and so
            # the backward) of the Linear layers in bf16, f32 params and
            # Adam state.
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(x128), y128)
            loss.backward()
            opt.step()

        figures["forward_backward_b128"] = median_ms(forward_backward)
        figures["train_step_adam_b128"] = median_ms(step)
        figures["train_step_adam_b128_autocast_bf16"] = median_ms(
            autocast_step)
        x = torch.randn(1 << 24)
        w, b = torch.tensor(1.5), torch.tensor(0.25)
        with torch.no_grad():
            figures["elementwise_ms"] = median_ms(
                lambda: F.gelu(x * w + b, approximate="tanh").sum(), 10)
        return figures

    one, two = run(1), run(2)
    return {k: min(one[k], two[k]) for k in one}


def jax_figures():
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    k = jax.random.split(key, 8)
    params = [
        (jax.random.normal(k[0], (784, 512)) * 0.05, jnp.zeros(512)),
        (jax.random.normal(k[1], (512, 512)) * 0.05, jnp.zeros(512)),
        (jax.random.normal(k[2], (512, 10)) * 0.05, jnp.zeros(10)),
    ]

    def logits(p, x):
        for i, (w, b) in enumerate(p):
            x = x @ w + b
            if i < len(p) - 1:
                x = jax.nn.relu(x)
        return x

    def loss(p, x, y):
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits(p, x)) * y, axis=1))

    @jax.jit
    def adam_step(p, m, v, t, x, y):
        value, g = jax.value_and_grad(loss)(p, x, y)
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        c1, c2 = 1 / (1 - 0.9 ** t), 1 / (1 - 0.999 ** t)
        p = jax.tree_util.tree_map(
            lambda p, m, v: p - 1e-3 * (m * c1) / (jnp.sqrt(v * c2) + 1e-8),
            p, m, v)
        return value, p, m, v

    x128 = jax.random.normal(k[3], (128, 784))
    x1024 = jax.random.normal(k[4], (1024, 784))
    y128 = jax.nn.one_hot(jnp.arange(128) % 10, 10)
    fwd = jax.jit(logits)
    grads = jax.jit(jax.value_and_grad(loss))
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    state = {"p": params, "m": zeros, "v": zeros, "t": 0}

    def step():
        state["t"] += 1
        _, state["p"], state["m"], state["v"] = adam_step(
            state["p"], state["m"], state["v"], float(state["t"]), x128, y128)
        jax.block_until_ready(state["p"])

    x = jax.random.normal(k[5], (1 << 24,))
    chain = jax.jit(lambda x, w, b: jnp.sum(
        jax.nn.gelu(x * w + b, approximate=True)))
    return {
        "forward_b128": median_ms(
            lambda: fwd(params, x128).block_until_ready()),
        "forward_b1024": median_ms(
            lambda: fwd(params, x1024).block_until_ready()),
        "forward_backward_b128": median_ms(
            lambda: jax.block_until_ready(grads(params, x128, y128))),
        "train_step_adam_b128": median_ms(step),
        "elementwise_ms": median_ms(
            lambda: chain(x, 1.5, 0.25).block_until_ready(), 10),
    }


def main():
    for name, figures in (("torch", torch_figures), ("jax", jax_figures)):
        try:
            result = figures()
        except ImportError as error:
            print(f"# {name} not available: {error}", file=sys.stderr)
            continue
        for key, ms in result.items():
            print(f"{name} {key} {ms:.4f}", flush=True)


if __name__ == "__main__":
    main()
