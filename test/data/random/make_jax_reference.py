#!/usr/bin/env python3
"""Writes jax_reference.json: what JAX's default PRNG (threefry2x32) gives for
a few keys, the reference of rlx's random ops (test/unittests/frontend/
RandomTest.cpp compares bit for bit; no JAX is needed at test time).

Run with the JAX of the benchmark references (pip install jax):
    python3 make_jax_reference.py > jax_reference.json

Integers are stored as unsigned 32-bit words; floats as their bit patterns
(u32 for f32, u64 for f64), so nothing is lost in the JSON text.
"""

import json
import sys

import jax
import numpy as np

# x64 for the f64 samples; keys, bits and the f32 samples are the same either
# way (checked below against the default mode).
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

SEEDS = [0, 42, 2**31 + 5, 2**40 + 3]


def words(a):
    return [int(v) for v in np.asarray(a, dtype=np.uint32).ravel()]


def f32_bits(a):
    return words(np.asarray(a, dtype=np.float32).view(np.uint32))


def f64_bits(a):
    return [int(v) for v in np.asarray(a, dtype=np.float64).view(np.uint64).ravel()]


def raw(key):
    return jax.random.key_data(key)


def cases(seed):
    key = jax.random.key(seed)
    f32, f64 = jnp.float32, jnp.float64
    return {
        "seed": seed,
        "key": words(raw(key)),
        "split3": words(raw(jax.random.split(key, 3))),
        "fold_in_7": words(raw(jax.random.fold_in(key, 7))),
        "fold_in_123456789": words(raw(jax.random.fold_in(key, 123456789))),
        "bits_5x7": words(jax.random.bits(key, (5, 7), jnp.uint32)),
        "uniform_f32_1000": f32_bits(jax.random.uniform(key, (1000,), f32)),
        "uniform_f32_m2_3_1000": f32_bits(
            jax.random.uniform(key, (1000,), f32, minval=-2.0, maxval=3.0)),
        "normal_f32_1000": f32_bits(jax.random.normal(key, (1000,), f32)),
        "uniform_f64_100": f64_bits(jax.random.uniform(key, (100,), f64)),
        "normal_f64_100": f64_bits(jax.random.normal(key, (100,), f64)),
        "bernoulli_0.3_1000": [int(v) for v in np.asarray(
            jax.random.bernoulli(key, np.float32(0.3), (1000,)),
            dtype=np.int32)],
        # Truncated normal: a symmetric, a one-sided, an off-centre and a
        # far-tail (both erfs round to -1: every sample is the clamp) range.
        "truncated_normal_f32_m2_2_1000": f32_bits(
            jax.random.truncated_normal(key, -2.0, 2.0, (1000,), f32)),
        "truncated_normal_f32_0.5_3_1000": f32_bits(
            jax.random.truncated_normal(key, 0.5, 3.0, (1000,), f32)),
        "truncated_normal_f32_m1_inf_1000": f32_bits(
            jax.random.truncated_normal(key, -1.0, np.inf, (1000,), f32)),
        "truncated_normal_f32_m8_m6_10": f32_bits(
            jax.random.truncated_normal(key, -8.0, -6.0, (10,), f32)),
        # Permutations: one sort round below 1626 elements, two above.
        "permutation_10": words(jax.random.permutation(key, 10)),
        "permutation_37": words(jax.random.permutation(key, 37)),
        "permutation_2000": words(jax.random.permutation(key, 2000)),
        "permutation_rows_5x3": words(jax.random.permutation(
            key, jnp.arange(15, dtype=jnp.int32).reshape(5, 3))),
    }


def main():
    assert jax.config.jax_threefry_partitionable, "expects the default mode"
    out = {
        "jax_version": jax.__version__,
        "prng": "threefry2x32",
        "threefry_partitionable": bool(jax.config.jax_threefry_partitionable),
        "cases": [cases(seed) for seed in SEEDS],
    }
    # The 32-bit results do not depend on x64 (keys below 2^31 agree).
    jax.config.update("jax_enable_x64", False)
    for c in out["cases"]:
        if c["seed"] >= 2**31:
            continue
        key = jax.random.key(c["seed"])
        assert words(raw(key)) == c["key"]
        assert words(jax.random.bits(key, (5, 7), jnp.uint32)) == c["bits_5x7"]
        assert f32_bits(jax.random.normal(key, (1000,))) == c["normal_f32_1000"]
        assert f32_bits(jax.random.truncated_normal(key, -2.0, 2.0, (1000,))) \
            == c["truncated_normal_f32_m2_2_1000"]
        assert words(jax.random.permutation(key, 37)) == c["permutation_37"]
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
