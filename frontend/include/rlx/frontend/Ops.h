//===- Ops.h - Every rlx op as a function on traced tensors ----*- C++ -*-===//
///
/// \file
/// Free functions and operators that check shapes while tracing (raising
/// rlx::Error naming the op, the shapes and the caller's line) and append one
/// rlx op each. Elementwise ops broadcast like NumPy; a `double` operand
/// becomes a rank-0 constant of the tensor's dtype.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_OPS_H
#define RLX_FRONTEND_OPS_H

#include "rlx/frontend/Tensor.h"

#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

namespace rlx {

using Axes = std::vector<int64_t>;
#define RLX_LOC SourceLoc loc = SourceLoc::current()

// Elementwise binary.
Tensor add(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor sub(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor mul(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor div(const Tensor &a, const Tensor &b, RLX_LOC);
/// The remainder of the truncating division, with a's sign (C's fmod).
Tensor rem(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor pow(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor pow(const Tensor &a, double b, RLX_LOC);
Tensor maximum(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor maximum(const Tensor &a, double b, RLX_LOC);
Tensor minimum(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor minimum(const Tensor &a, double b, RLX_LOC);

Tensor operator+(const Tensor &a, const Tensor &b);
Tensor operator-(const Tensor &a, const Tensor &b);
Tensor operator*(const Tensor &a, const Tensor &b);
Tensor operator/(const Tensor &a, const Tensor &b);
Tensor operator+(const Tensor &a, double b);
Tensor operator-(const Tensor &a, double b);
Tensor operator*(const Tensor &a, double b);
Tensor operator/(const Tensor &a, double b);
Tensor operator+(double a, const Tensor &b);
Tensor operator-(double a, const Tensor &b);
Tensor operator*(double a, const Tensor &b);
Tensor operator/(double a, const Tensor &b);
Tensor operator-(const Tensor &a);

// Elementwise unary.
Tensor neg(const Tensor &x, RLX_LOC);
Tensor abs(const Tensor &x, RLX_LOC);
Tensor exp(const Tensor &x, RLX_LOC);
Tensor log(const Tensor &x, RLX_LOC);
Tensor sqrt(const Tensor &x, RLX_LOC);
Tensor rsqrt(const Tensor &x, RLX_LOC);
Tensor tanh(const Tensor &x, RLX_LOC);
Tensor erf(const Tensor &x, RLX_LOC);
/// Radians.
Tensor sin(const Tensor &x, RLX_LOC);
Tensor cos(const Tensor &x, RLX_LOC);
/// In (-pi/2, pi/2).
Tensor atan(const Tensor &x, RLX_LOC);
Tensor sigmoid(const Tensor &x, RLX_LOC);
Tensor relu(const Tensor &x, RLX_LOC);
/// `approximate`: "tanh" (JAX's default) or "erf".
Tensor gelu(const Tensor &x, const std::string &approximate = "tanh", RLX_LOC);
Tensor square(const Tensor &x, RLX_LOC);
/// -1, 0 or 1.
Tensor sign(const Tensor &x, RLX_LOC);
Tensor stop_gradient(const Tensor &x, RLX_LOC);
/// Keeps CSE and folding from merging what it guards.
Tensor optimization_barrier(const Tensor &x, RLX_LOC);

// Comparisons (i1 results) and selection.
Tensor eq(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor ne(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor lt(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor le(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor gt(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor ge(const Tensor &a, const Tensor &b, RLX_LOC);
Tensor operator<(const Tensor &a, const Tensor &b);
Tensor operator<=(const Tensor &a, const Tensor &b);
Tensor operator>(const Tensor &a, const Tensor &b);
Tensor operator>=(const Tensor &a, const Tensor &b);
Tensor operator<(const Tensor &a, double b);
Tensor operator>(const Tensor &a, double b);
/// `cond ? on_true : on_false`, all three broadcast together.
Tensor where(const Tensor &cond, const Tensor &on_true, const Tensor &on_false,
             RLX_LOC);
Tensor cast(const Tensor &x, DType dtype, RLX_LOC);
/// `x` (f32 or f64) cast to a float `dtype` of fewer mantissa bits (bf16,
/// f16, a narrow float) with stochastic rounding under `key` (a random
/// key, `[2]` i32, or `[b..., 2]` with one key per leading index of x): as
/// fake_quant(x, dtype's format, key) rounds, then stored in `dtype`;
/// unbiased, so an accumulation stored in bf16 does not lose its small
/// updates. The key carries no derivative.
Tensor cast(const Tensor &x, DType dtype, const Tensor &key, RLX_LOC);

// Contraction, convolution, pooling.
/// `[..., M, K] x [..., K, N]`, batch dims broadcast.
Tensor matmul(const Tensor &a, const Tensor &b, RLX_LOC);
/// NHWC input, [KH, KW, C/groups, F] filter; padding top, bottom, left, right.
Tensor conv2d(const Tensor &input, const Tensor &filter,
              const Axes &strides = {1, 1}, const Axes &padding = {0, 0, 0, 0},
              const Axes &dilations = {1, 1}, int64_t groups = 1, RLX_LOC);
Tensor max_pool2d(const Tensor &input, const Axes &window,
                  const Axes &strides = {1, 1},
                  const Axes &padding = {0, 0, 0, 0}, RLX_LOC);
Tensor avg_pool2d(const Tensor &input, const Axes &window,
                  const Axes &strides = {1, 1},
                  const Axes &padding = {0, 0, 0, 0}, RLX_LOC);

// Reductions; empty `axes` reduces every axis.
Tensor sum(const Tensor &x, const Axes &axes = {}, bool keepdims = false,
           RLX_LOC);
Tensor mean(const Tensor &x, const Axes &axes = {}, bool keepdims = false,
            RLX_LOC);
Tensor max(const Tensor &x, const Axes &axes = {}, bool keepdims = false,
           RLX_LOC);
Tensor softmax(const Tensor &x, int64_t axis = -1, RLX_LOC);
Tensor log_softmax(const Tensor &x, int64_t axis = -1, RLX_LOC);

// Shapes.
/// One `dyn` (or -1) entry is inferred from the element count.
Tensor reshape(const Tensor &x, const Shape &shape, RLX_LOC);
/// Empty `permutation` reverses the axes.
Tensor transpose(const Tensor &x, const Axes &permutation = {}, RLX_LOC);
/// NumPy broadcasting of `x` to `shape` (aligned from the right).
Tensor broadcast_to(const Tensor &x, const Shape &shape, RLX_LOC);

/// One dim of a slice: `{}` (everything), `{start, limit}` or
/// `{start, limit, step}`. Negative bounds count from the end; `end` is
/// the end of the dim.
struct Range {
  static constexpr int64_t end = std::numeric_limits<int64_t>::max();
  int64_t start = 0, limit = end, step = 1;
  Range() = default;
  Range(int64_t start, int64_t limit, int64_t step = 1)
      : start(start), limit(limit), step(step) {}
};
constexpr int64_t end = Range::end;
/// `slice(x, {{}, {1, 4}, {0, end, 2}})`: dims not listed are kept whole.
Tensor slice(const Tensor &x, const std::vector<Range> &ranges, RLX_LOC);
/// Element `index` of `axis`, the axis removed.
Tensor take(const Tensor &x, int64_t axis, int64_t index, RLX_LOC);
Tensor concat(const std::vector<Tensor> &xs, int64_t axis = 0, RLX_LOC);
/// A new axis `axis` of size xs.size().
Tensor stack(const std::vector<Tensor> &xs, int64_t axis = 0, RLX_LOC);
/// NumPy's `take(x, indices, axis)`; indices are i32 or i64.
Tensor gather(const Tensor &x, const Tensor &indices, int64_t axis = 0,
              RLX_LOC);
/// Pads with `value`: `low`/`high` per dim.
Tensor pad(const Tensor &x, const Axes &low, const Axes &high, double value = 0,
           RLX_LOC);
/// Integer labels `[...]` to `[..., classes]` in `dtype`.
Tensor one_hot(const Tensor &labels, int64_t classes, DType dtype = DType::f32,
               RLX_LOC);

// Quantization.
/// A binary floating-point format fake_quant rounds to (the dialect's
/// `rlx.fake_quant` attributes): 1 sign bit, `exponent_bits`,
/// `mantissa_bits`, values (-1)^s 2^(e - bias) 1.m, subnormals included.
struct FloatFormat {
  /// Which codes are not finite numbers, as MLIR's float types say it.
  enum class Specials {
    /// The top exponent holds inf and NaN (f8E5M2).
    ieee,
    /// No inf; the all-ones magnitude is NaN (f8E4M3FN).
    fn,
    /// No inf and no -0; the code of -0 is NaN (f8E4M3FNUZ).
    fnuz,
    /// Every code is a finite number (f6E3M2FN, f4E2M1FN).
    finite,
  };
  int64_t exponent_bits = 0;
  int64_t mantissa_bits = 0;
  int64_t bias = 0;
  Specials specials = Specials::ieee;
  /// Values beyond the largest finite one become +-max instead of inf
  /// (ieee) or NaN (fn, fnuz); `finite` formats always saturate.
  bool saturate = false;

  /// `e4m3 bias 7 fn`, as errors name a format.
  std::string str() const;
  /// The largest finite value.
  double max_finite() const;
};

/// The formats of MLIR's narrow float types (and ml_dtypes').
namespace formats {
FloatFormat f8e4m3fn(bool saturate = false);
FloatFormat f8e4m3(bool saturate = false);
FloatFormat f8e4m3fnuz(bool saturate = false);
FloatFormat f8e5m2(bool saturate = false);
FloatFormat f8e5m2fnuz(bool saturate = false);
FloatFormat f6e3m2fn();
FloatFormat f6e2m3fn();
FloatFormat f4e2m1fn();
/// By the names above (`"f8e4m3fn"`, ...), as command lines give them;
/// throws naming the known ones for another.
FloatFormat named(const std::string &name);
} // namespace formats

/// Each element of `x` (f32 or f64) rounded to the nearest value of
/// `format`, ties to even, kept in x's dtype: quantization-aware training's
/// forward pass. Its derivative is the straight-through estimator (the
/// cotangent passes unchanged). The op's verifier rejects a format whose
/// values are not numbers of x's dtype.
Tensor fake_quant(const Tensor &x, const FloatFormat &format, RLX_LOC);
/// The same with stochastic rounding under `key` (a random key, `[2]` i32,
/// or `[b..., 2]` with one key per leading index of x): each element goes
/// to one of its two neighbours in `format`, the upper one with probability
/// its distance from the lower in ulps, drawn as `random::uniform(key,
/// x's shape)`; unbiased, so many small updates do not vanish as they do
/// when rounded to nearest. The key carries no derivative.
Tensor fake_quant(const Tensor &x, const FloatFormat &format, const Tensor &key,
                  RLX_LOC);
/// Block-scaled values (the MX formats, ONNX's blocked DequantizeLinear):
/// each element of `x` times the scale of its block, `x` cut along `axis`
/// into blocks of `block_size` (the last may be shorter) and `scales` of
/// x's shape but `ceil(dim / block_size)` along `axis`; the product in
/// `dtype` (f32, f64, bf16 or f16). `x` may hold narrow float codes
/// (f8e4m3fn, f4e2m1fn, ...), integers or floats, `scales` f8e8m0fnu
/// (powers of two, the MX scale), f16, bf16, f32 or f64. A float `x` gets
/// the cotangent scaled the same way; the scales get no derivative.
Tensor block_dequantize(const Tensor &x, const Tensor &scales, int64_t axis,
                        int64_t block_size, DType dtype = DType::f32, RLX_LOC);
/// `f` with each read of the named params (default: every f32/f64 param of
/// rank 2 or more, the matrices and kernels) followed by fake_quant, in
/// `f` and in the functions it calls: the model as it runs with its
/// weights stored in `format` (QAT's forward pass, TrainOptions::qat, or
/// evaluating such a model). With `activations`, also every other f32/f64
/// operand of a matmul or conv2d (what a kernel reading both operands in
/// `format` sees). It keeps f's name, inputs and params (the deployed entry
/// point is the same); `f` is returned as it is when nothing changes.
/// Throws naming a param that `f` does not read or whose dtype is not
/// f32/f64.
Func fake_quant_params(const Func &f, const FloatFormat &format,
                       const std::vector<std::string> &params = {},
                       bool activations = false, RLX_LOC);

/// `f` computing in `dtype` (bf16 or f16) where it computed in f32: a copy
/// of its IR (and of each callee) in which every f32 value becomes
/// `dtype`. Its f32 inputs and param reads are cast after they are read,
/// f32 constants are rounded, and its f32 outputs are cast back, so it
/// keeps f's name, signature and params (f32 weights bind unchanged and a
/// gradient w.r.t. them comes back f32 through the casts' derivatives).
/// An op that does not verify in `dtype` (random samplers, fake_quant, a
/// bitcast) and an op referring to a function (a call, a loop or branch
/// body, a transform) keep their f32 operands and results, with casts
/// around them. f64 and integer values are left alone. Mixed-precision
/// training (TrainOptions::precision) differentiates it.
Func compute_in(const Func &f, DType dtype, RLX_LOC);

#undef RLX_LOC
} // namespace rlx

#endif // RLX_FRONTEND_OPS_H
