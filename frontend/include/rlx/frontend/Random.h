//===- Random.h - Keyed random numbers, JAX's way ---------------*- C++ -*-===//
///
/// \file
/// `rlx::random`: splittable keys and samplers on JAX's default generator
/// (threefry2x32, partitionable), giving JAX's bits for the same key. A key
/// is an i32 tensor `[..., 2]` (two words read as unsigned); leading dims are
/// batch dims, one key per lane (a vmapped key is one). Sample shapes are
/// static. Samples carry no gradient, and a key cannot be a gradient leaf.
///
/// \code
///   Tensor k = random::key(s, 0);
///   std::vector<Tensor> ks = random::split_keys(k, 2);
///   Tensor noise = random::normal(ks[0], {128, 64});
///   Tensor y = dropout(ks[1], x, 0.1, /*train=*/true);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_RANDOM_H
#define RLX_FRONTEND_RANDOM_H

#include "rlx/frontend/Ops.h"

namespace rlx::random {

/// JAX's `random.key(seed)`: the words `[seed >> 32, seed & 0xffffffff]`.
Tensor key(Scope &s, uint64_t seed, SourceLoc loc = SourceLoc::current());
/// `num` new keys `[..., num, 2]` (JAX's `random.split`).
Tensor split(const Tensor &key, int64_t num = 2, SourceLoc loc = SourceLoc::current());
/// `split`, as one key tensor per new key.
std::vector<Tensor> split_keys(const Tensor &key, int64_t num = 2, SourceLoc loc = SourceLoc::current());
/// A key from `key` and i32 `data` (JAX's `random.fold_in`); the key's
/// batch dims and data's dims broadcast.
Tensor fold_in(const Tensor &key, const Tensor &data, SourceLoc loc = SourceLoc::current());
Tensor fold_in(const Tensor &key, uint32_t data, SourceLoc loc = SourceLoc::current());
/// 32 random bits per element, as i32 (JAX's `random.bits`, uint32).
Tensor bits(const Tensor &key, const Shape &shape, SourceLoc loc = SourceLoc::current());
/// Uniform in `[minval, maxval)`, f32 or f64.
Tensor uniform(const Tensor &key, const Shape &shape, DType dtype = DType::f32,
               double minval = 0.0, double maxval = 1.0, SourceLoc loc = SourceLoc::current());
/// Standard normal, f32 or f64.
Tensor normal(const Tensor &key, const Shape &shape, DType dtype = DType::f32,
              SourceLoc loc = SourceLoc::current());
/// Standard normal truncated to the open interval `(lower, upper)`, f32 or
/// f64 (JAX's `truncated_normal`: erfinv of a uniform between the erf of the
/// bounds, clamped inside them). Either bound may be infinite.
Tensor truncated_normal(const Tensor &key, double lower, double upper,
                        const Shape &shape, DType dtype = DType::f32,
                        SourceLoc loc = SourceLoc::current());
/// A random permutation of `0..n-1` (i32 `[batch..., n]`), JAX's
/// `permutation(key, n)` bit for bit: JAX's rounds of a stable sort by
/// fresh random bits (one round up to n = 1625, two up to ~2.6 million).
/// rlx has no sort: each round ranks the n keys by an `[n, n]` compare and
/// sum and applies the ranks by an `[n, n]` select and sum, O(n^2) time
/// and memory, meant for a dataset shuffle of up to a few thousand.
Tensor permutation(const Tensor &key, int64_t n,
                   SourceLoc loc = SourceLoc::current());
/// `x` (static dim 0) shuffled along axis 0 (JAX's `permutation(key, x)`):
/// `gather(x, permutation(key, x.dim(0)))`, `[batch..., n, rest...]`.
Tensor permutation(const Tensor &key, const Tensor &x,
                   SourceLoc loc = SourceLoc::current());
/// True with probability `p` (i1), as JAX's `bernoulli(key, p, shape)`:
/// `uniform(key, shape) < p` in `p`'s dtype.
Tensor bernoulli(const Tensor &key, double p, const Shape &shape,
                 DType dtype = DType::f32, SourceLoc loc = SourceLoc::current());
/// `p` a float tensor that broadcasts to `shape`.
Tensor bernoulli(const Tensor &key, const Tensor &p, const Shape &shape,
                 SourceLoc loc = SourceLoc::current());
/// Gumbel(0, 1) samples: `-log(-log(u))`, u uniform in [tiny, 1).
Tensor gumbel(const Tensor &key, const Shape &shape, DType dtype = DType::f32,
              SourceLoc loc = SourceLoc::current());
/// Indices (i32) drawn from the softmax of `logits` along `axis` (JAX's
/// `categorical`: the argmax of logits plus Gumbel noise). `logits` has a
/// static shape; the result drops `axis`.
Tensor categorical(const Tensor &key, const Tensor &logits, int64_t axis = -1,
                   SourceLoc loc = SourceLoc::current());
/// The first index of the largest element along `axis` (i32), without it.
Tensor argmax(const Tensor &x, int64_t axis = -1, SourceLoc loc = SourceLoc::current());

} // namespace rlx::random

#endif // RLX_FRONTEND_RANDOM_H
