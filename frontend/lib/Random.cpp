//===- Random.cpp - Keyed random numbers, JAX's way -----------------------===//
///
/// \file
/// The key ops and samplers are rlx ops (random_split, random_fold_in,
/// random_bits, random_uniform, random_normal, random_truncated_normal)
/// built by their builders at the caller's location, so their verifiers
/// check keys and shapes. The rest composes them as JAX does: bernoulli
/// compares a uniform with p, gumbel takes two logs of a uniform,
/// categorical is the argmax of logits plus Gumbel noise, permutation
/// sorts by random bits.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Random.h"

#include "TraceIR.h"

#include "dialects/RLX/IR/RLXDialect.h"

#include <cmath>
#include <limits>

using namespace mlir::rlx;

namespace rlx::random {

using namespace detail;

namespace {

[[noreturn]] void fail(const std::string &op, const std::string &message,
                       SourceLoc loc) {
  throw Error("rlx::random::" + op + ": " + message + loc.suffix());
}

void checkKey(const std::string &op, const Tensor &key, SourceLoc loc) {
  if (!key.valid())
    fail(op, "the key is an empty Tensor", loc);
}

/// The key's batch dims followed by `shape`: a sampler's result shape.
Shape sampleShape(const Tensor &key, const Shape &shape) {
  Shape out(key.shape().begin(), key.shape().end() - (key.rank() ? 1 : 0));
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

/// A sampler with its result type; its verifier checks key and shape.
template <typename OpTy, typename... Attrs>
Tensor sample(const std::string &op, const Tensor &key, const Shape &shape,
              DType dtype, SourceLoc loc, Attrs &&...attrs) {
  checkKey(op, key, loc);
  for (int64_t d : shape)
    if (d < 0)
      fail(op, "expects a static sample shape, got " + format_shape(shape),
           loc);
  return buildTyped<OpTy>(key.scope(), "random::" + op, loc,
                          TensorType{dtype, sampleShape(key, shape)},
                          valueOf(key), std::forward<Attrs>(attrs)...);
}

/// A word read as unsigned, as the i32 constant that holds its bits.
double asI32(uint32_t word) { return static_cast<int32_t>(word); }

} // namespace

Tensor key(Scope &s, uint64_t seed, SourceLoc loc) {
  return s.constant({asI32(static_cast<uint32_t>(seed >> 32)),
                     asI32(static_cast<uint32_t>(seed))},
                    {2}, DType::i32, loc);
}

Tensor split(const Tensor &key, int64_t num, SourceLoc loc) {
  checkKey("split", key, loc);
  mlir::Builder b(sharedContext().get());
  return build<RandomSplitOp>(key.scope(), "random::split", loc, valueOf(key),
                              b.getI64IntegerAttr(num));
}

std::vector<Tensor> split_keys(const Tensor &key, int64_t num,
                               SourceLoc loc) {
  Tensor keys = split(key, num, loc);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < num; ++i)
    out.push_back(take(keys, keys.rank() - 2, i, loc));
  return out;
}

Tensor fold_in(const Tensor &key, const Tensor &data, SourceLoc loc) {
  checkKey("fold_in", key, loc);
  if (!data.valid())
    fail("fold_in", "the data is an empty Tensor", loc);
  // The innermost trace of the two (a loop body captures the other).
  Scope *s = Scope::innermost(&key.scope(), &data.scope());
  if (!s)
    fail("fold_in", "key and data come from different traces", loc);
  return build<RandomFoldInOp>(*s, "random::fold_in", loc,
                               valueOf(s->adopt(key, loc)),
                               valueOf(s->adopt(data, loc)));
}

Tensor fold_in(const Tensor &key, uint32_t data, SourceLoc loc) {
  checkKey("fold_in", key, loc);
  return fold_in(key, key.scope().scalar(asI32(data), DType::i32, loc), loc);
}

Tensor bits(const Tensor &key, const Shape &shape, SourceLoc loc) {
  return sample<RandomBitsOp>("bits", key, shape, DType::i32, loc);
}

Tensor uniform(const Tensor &key, const Shape &shape, DType dtype,
               double minval, double maxval, SourceLoc loc) {
  mlir::Builder b(sharedContext().get());
  return sample<RandomUniformOp>("uniform", key, shape, dtype, loc,
                                 b.getF64FloatAttr(minval),
                                 b.getF64FloatAttr(maxval));
}

Tensor normal(const Tensor &key, const Shape &shape, DType dtype,
              SourceLoc loc) {
  return sample<RandomNormalOp>("normal", key, shape, dtype, loc);
}

Tensor truncated_normal(const Tensor &key, double lower, double upper,
                        const Shape &shape, DType dtype, SourceLoc loc) {
  mlir::Builder b(sharedContext().get());
  return sample<RandomTruncatedNormalOp>("truncated_normal", key, shape, dtype,
                                         loc, b.getF64FloatAttr(lower),
                                         b.getF64FloatAttr(upper));
}

Tensor permutation(const Tensor &key, int64_t n, SourceLoc loc) {
  checkKey("permutation", key, loc);
  if (n < 1)
    fail("permutation", "expects n >= 1, got " + std::to_string(n), loc);
  Scope &s = key.scope();
  // JAX's _shuffle: ceil(3 ln(n) / ln(2^32 - 1)) rounds, each splitting the
  // key, drawing 32 bits per element and stably sorting by them (unsigned).
  int64_t rounds = static_cast<int64_t>(std::ceil(
      3.0 * std::log(static_cast<double>(n)) / std::log(4294967295.0)));
  std::vector<double> iota(n);
  for (int64_t i = 0; i < n; ++i)
    iota[i] = static_cast<double>(i);
  Tensor index64 = s.constant(iota, {n}, DType::i64, loc);
  Tensor rowIndex = s.constant(iota, {n, 1}, DType::i32, loc);
  Tensor x = s.constant(iota, {n}, DType::i32, loc);
  Tensor k = key;
  int64_t batchRank = key.rank() - 1;
  for (int64_t round = 0; round < rounds; ++round) {
    std::vector<Tensor> ks = split_keys(k, 2, loc);
    k = ks[0];
    // The bits as unsigned in i64, then made unique in the sort's order
    // (stable: equal bits keep the index order): bits * n + index.
    Tensor b = cast(bits(ks[1], {n}, loc), DType::i64, loc);
    Tensor u = where(lt(b, s.scalar(0, DType::i64, loc), loc),
                     add(b, s.scalar(4294967296.0, DType::i64, loc), loc), b,
                     loc);
    Tensor c = add(mul(u, s.scalar(static_cast<double>(n), DType::i64, loc),
                       loc),
                   index64, loc);
    // rank_i = #{j : c_j < c_i}, over [batch..., n (i), n (j)].
    Shape column(c.shape()), row(c.shape());
    column.push_back(1);
    row.insert(row.begin() + batchRank, 1);
    Tensor below = lt(reshape(c, row, loc), reshape(c, column, loc), loc);
    Tensor rank = sum(cast(below, DType::i32, loc), {-1}, false, loc);
    // out_r = x_i where rank_i = r, over [batch..., n (r), n (i)].
    Shape rankRow(rank.shape());
    rankRow.insert(rankRow.begin() + batchRank, 1);
    Tensor at = eq(reshape(rank, rankRow, loc), rowIndex, loc);
    Shape xRow(x.shape());
    xRow.insert(xRow.end() - 1, 1);
    x = sum(where(at, reshape(x, xRow, loc), s.scalar(0, DType::i32, loc),
                  loc),
            {-1}, false, loc);
  }
  if (rounds == 0) {
    Shape shape = sampleShape(key, {n});
    x = broadcast_to(x, shape, loc);
  }
  return x;
}

Tensor permutation(const Tensor &key, const Tensor &x, SourceLoc loc) {
  checkKey("permutation", key, loc);
  if (!x.valid())
    fail("permutation", "x is an empty Tensor", loc);
  if (x.rank() < 1 || x.dim(0) < 0)
    fail("permutation", "expects x with a static dim 0, got " + x.type().str(),
         loc);
  Scope *s = Scope::innermost(&key.scope(), &x.scope());
  if (!s)
    fail("permutation", "key and x come from different traces", loc);
  Tensor perm = permutation(s->adopt(key, loc), x.dim(0), loc);
  return gather(s->adopt(x, loc), perm, 0, loc);
}

Tensor bernoulli(const Tensor &key, double p, const Shape &shape, DType dtype,
                 SourceLoc loc) {
  Tensor u = uniform(key, shape, dtype, 0.0, 1.0, loc);
  return lt(u, u.scope().scalar(p, dtype, loc), loc);
}

Tensor bernoulli(const Tensor &key, const Tensor &p, const Shape &shape,
                 SourceLoc loc) {
  if (!p.valid())
    fail("bernoulli", "p is an empty Tensor", loc);
  Tensor u = uniform(key, shape, p.dtype(), 0.0, 1.0, loc);
  return lt(u, p, loc);
}

Tensor gumbel(const Tensor &key, const Shape &shape, DType dtype,
              SourceLoc loc) {
  double tiny = dtype == DType::f64 ? std::numeric_limits<double>::min()
                                    : std::numeric_limits<float>::min();
  Tensor u = uniform(key, shape, dtype, tiny, 1.0, loc);
  return neg(log(neg(log(u, loc), loc), loc), loc);
}

Tensor argmax(const Tensor &x, int64_t axis, SourceLoc loc) {
  if (!x.valid())
    fail("argmax", "x is an empty Tensor", loc);
  if (axis < 0)
    axis += x.rank();
  if (axis < 0 || axis >= x.rank())
    fail("argmax", "axis out of range for " + x.type().str(), loc);
  int64_t n = x.dim(axis);
  if (n < 0)
    fail("argmax", "needs a static size along the axis, got " +
                       x.type().str(),
         loc);
  // The first maximum: the largest of (n - 1 - i) where x is at its max.
  Scope &s = x.scope();
  std::vector<double> reversed;
  for (int64_t i = 0; i < n; ++i)
    reversed.push_back(static_cast<double>(n - 1 - i));
  Shape column(x.rank() - axis, 1);
  column[0] = n;
  Tensor rev = s.constant(reversed, column, DType::i32, loc);
  Tensor best = max(x, {axis}, /*keepdims=*/true, loc);
  Tensor atBest = where(eq(x, best, loc), rev,
                        s.scalar(-1, DType::i32, loc), loc);
  Tensor last = max(atBest, {axis}, /*keepdims=*/false, loc);
  return sub(s.scalar(static_cast<double>(n - 1), DType::i32, loc), last, loc);
}

Tensor categorical(const Tensor &key, const Tensor &logits, int64_t axis,
                   SourceLoc loc) {
  if (!logits.valid())
    fail("categorical", "logits is an empty Tensor", loc);
  if (!logits.type().is_static())
    fail("categorical", "needs logits of a static shape, got " +
                            logits.type().str(),
         loc);
  Tensor noise = gumbel(key, logits.shape(), logits.dtype(), loc);
  return argmax(add(noise, logits, loc), axis, loc);
}

} // namespace rlx::random
