//===- Ops.cpp - Every rlx op as a traced function ------------------------===//
///
/// \file
/// Each function builds its op with the dialect's inferring builder
/// (createChecked) at the caller's location: the op's own shape rule and
/// verifier check it, and their error becomes an rlx::Error naming the
/// caller's file and line. What is left here is the API's own: negative
/// axes, default permutations, Python-style slices, the result types of the
/// ops that take one (reshape, broadcast_in_dim, cast), and ops composed of
/// others (take, stack, one_hot, sign).
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Ops.h"

#include "TraceIR.h"

#include "dialects/RLX/IR/RLXDialect.h"

#include <algorithm>
#include <numeric>

/// The dialect and the compiler (mlir::rlx) under the frontend (::rlx):
/// frontend names win where both have one.
using namespace mlir::rlx;

namespace rlx {

using namespace detail;

namespace {

[[noreturn]] void fail(const std::string &op, const std::string &message,
                       SourceLoc loc) {
  throw Error("rlx::" + op + ": " + message + loc.suffix());
}

mlir::Builder attrs() { return mlir::Builder(sharedContext().get()); }

mlir::DenseI64ArrayAttr arr(const Axes &axes) {
  return attrs().getDenseI64ArrayAttr(axes);
}

mlir::IntegerAttr i64Attr(int64_t value) {
  return attrs().getI64IntegerAttr(value);
}

/// `x`'s value in scope `s` (captured when it is of an enclosing scope).
mlir::Value valueIn(Scope &s, const Tensor &x) { return valueOf(s.adopt(x)); }

template <typename OpTy>
Tensor binary(const std::string &op, const Tensor &a, const Tensor &b,
              SourceLoc loc) {
  Scope &s = commonScope(op, {a, b}, loc);
  return build<OpTy>(s, op, loc, valueIn(s, a), valueIn(s, b));
}

template <typename OpTy>
Tensor unary(const std::string &op, const Tensor &x, SourceLoc loc) {
  Scope &s = commonScope(op, {x}, loc);
  return build<OpTy>(s, op, loc, valueIn(s, x));
}

Tensor scalarLike(const Tensor &t, double value, SourceLoc loc = {}) {
  return t.scope().scalar(value, t.dtype(), loc);
}

/// A negative axis counts from the end; the op's rule checks the range.
int64_t normAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

Tensor compare(const char *direction, const Tensor &a, const Tensor &b,
               SourceLoc loc) {
  Scope &s = commonScope("compare", {a, b}, loc);
  return build<CompareOp>(s, "compare", loc, attrs().getStringAttr(direction),
                          valueIn(s, a), valueIn(s, b));
}

/// Every axis when `axes` is empty; sorted, negatives counted from the end.
template <typename OpTy>
Tensor reduce(const std::string &op, const Tensor &x, const Axes &axes,
              bool keepdims, SourceLoc loc) {
  Scope &s = commonScope(op, {x}, loc);
  Axes norm(axes.empty() ? x.rank() : 0);
  std::iota(norm.begin(), norm.end(), 0);
  for (int64_t axis : axes)
    norm.push_back(normAxis(axis, x.rank()));
  std::sort(norm.begin(), norm.end());
  return build<OpTy>(s, op, loc, valueIn(s, x), arr(norm),
                     attrs().getBoolAttr(keepdims));
}

/// x with a new size-1 axis at `axis` (broadcast_in_dim, which allows any
/// number of dynamic dims, unlike reshape).
Tensor expandDims(const Tensor &x, int64_t axis, SourceLoc loc) {
  Shape shape = x.shape();
  shape.insert(shape.begin() + axis, 1);
  Axes dims;
  for (int64_t i = 0; i < x.rank(); ++i)
    dims.push_back(i < axis ? i : i + 1);
  return buildTyped<BroadcastInDimOp>(x.scope(), "broadcast_in_dim", loc,
                                      TensorType{x.dtype(), shape}, valueOf(x),
                                      arr(dims));
}

template <typename OpTy>
Tensor pool(const std::string &op, const Tensor &input, const Axes &window,
            const Axes &strides, const Axes &padding, SourceLoc loc) {
  Scope &s = commonScope(op, {input}, loc);
  return build<OpTy>(s, op, loc, valueIn(s, input), arr(window), arr(strides),
                     arr(padding));
}

} // namespace

// Binary ops.
Tensor add(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary<AddOp>("add", a, b, loc);
}
Tensor sub(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary<SubOp>("sub", a, b, loc);
}
Tensor mul(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary<MulOp>("mul", a, b, loc);
}
Tensor div(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary<DivOp>("div", a, b, loc);
}
Tensor pow(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary<PowOp>("pow", a, b, loc);
}
Tensor rem(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary<RemOp>("rem", a, b, loc);
}
Tensor pow(const Tensor &a, double b, SourceLoc loc) {
  return pow(a, scalarLike(a, b, loc), loc);
}
Tensor maximum(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary<MaximumOp>("maximum", a, b, loc);
}
Tensor maximum(const Tensor &a, double b, SourceLoc loc) {
  return maximum(a, scalarLike(a, b, loc), loc);
}
Tensor minimum(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary<MinimumOp>("minimum", a, b, loc);
}
Tensor minimum(const Tensor &a, double b, SourceLoc loc) {
  return minimum(a, scalarLike(a, b, loc), loc);
}

Tensor operator+(const Tensor &a, const Tensor &b) { return add(a, b, {}); }
Tensor operator-(const Tensor &a, const Tensor &b) { return sub(a, b, {}); }
Tensor operator*(const Tensor &a, const Tensor &b) { return mul(a, b, {}); }
Tensor operator/(const Tensor &a, const Tensor &b) { return div(a, b, {}); }
Tensor operator+(const Tensor &a, double b) { return a + scalarLike(a, b); }
Tensor operator-(const Tensor &a, double b) { return a - scalarLike(a, b); }
Tensor operator*(const Tensor &a, double b) { return a * scalarLike(a, b); }
Tensor operator/(const Tensor &a, double b) { return a / scalarLike(a, b); }
Tensor operator+(double a, const Tensor &b) { return scalarLike(b, a) + b; }
Tensor operator-(double a, const Tensor &b) { return scalarLike(b, a) - b; }
Tensor operator*(double a, const Tensor &b) { return scalarLike(b, a) * b; }
Tensor operator/(double a, const Tensor &b) { return scalarLike(b, a) / b; }
Tensor operator-(const Tensor &a) { return neg(a, {}); }

// Unary ops.
Tensor neg(const Tensor &x, SourceLoc loc) {
  return unary<NegOp>("neg", x, loc);
}
Tensor abs(const Tensor &x, SourceLoc loc) {
  return unary<AbsOp>("abs", x, loc);
}
Tensor exp(const Tensor &x, SourceLoc loc) {
  return unary<ExpOp>("exp", x, loc);
}
Tensor log(const Tensor &x, SourceLoc loc) {
  return unary<LogOp>("log", x, loc);
}
Tensor sqrt(const Tensor &x, SourceLoc loc) {
  return unary<SqrtOp>("sqrt", x, loc);
}
Tensor rsqrt(const Tensor &x, SourceLoc loc) {
  return unary<RsqrtOp>("rsqrt", x, loc);
}
Tensor tanh(const Tensor &x, SourceLoc loc) {
  return unary<TanhOp>("tanh", x, loc);
}
Tensor erf(const Tensor &x, SourceLoc loc) {
  return unary<ErfOp>("erf", x, loc);
}
Tensor sin(const Tensor &x, SourceLoc loc) {
  return unary<SinOp>("sin", x, loc);
}
Tensor cos(const Tensor &x, SourceLoc loc) {
  return unary<CosOp>("cos", x, loc);
}
Tensor atan(const Tensor &x, SourceLoc loc) {
  return unary<AtanOp>("atan", x, loc);
}
Tensor sigmoid(const Tensor &x, SourceLoc loc) {
  return unary<SigmoidOp>("sigmoid", x, loc);
}
Tensor relu(const Tensor &x, SourceLoc loc) {
  return unary<ReluOp>("relu", x, loc);
}
Tensor gelu(const Tensor &x, const std::string &approximate, SourceLoc loc) {
  Scope &s = commonScope("gelu", {x}, loc);
  return build<GeluOp>(s, "gelu", loc, valueIn(s, x),
                       attrs().getStringAttr(approximate));
}
Tensor square(const Tensor &x, SourceLoc loc) { return mul(x, x, loc); }
Tensor sign(const Tensor &x, SourceLoc loc) {
  Tensor zero = scalarLike(x, 0, loc);
  return where(gt(x, zero, loc), scalarLike(x, 1, loc),
               where(lt(x, zero, loc), scalarLike(x, -1, loc), zero, loc), loc);
}
Tensor stop_gradient(const Tensor &x, SourceLoc loc) {
  return unary<StopGradientOp>("stop_gradient", x, loc);
}
Tensor optimization_barrier(const Tensor &x, SourceLoc loc) {
  return unary<OptimizationBarrierOp>("optimization_barrier", x, loc);
}

// Comparisons.
Tensor eq(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("eq", a, b, loc);
}
Tensor ne(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("ne", a, b, loc);
}
Tensor lt(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("lt", a, b, loc);
}
Tensor le(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("le", a, b, loc);
}
Tensor gt(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("gt", a, b, loc);
}
Tensor ge(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("ge", a, b, loc);
}
Tensor operator<(const Tensor &a, const Tensor &b) { return lt(a, b, {}); }
Tensor operator<=(const Tensor &a, const Tensor &b) { return le(a, b, {}); }
Tensor operator>(const Tensor &a, const Tensor &b) { return gt(a, b, {}); }
Tensor operator>=(const Tensor &a, const Tensor &b) { return ge(a, b, {}); }
Tensor operator<(const Tensor &a, double b) { return a < scalarLike(a, b); }
Tensor operator>(const Tensor &a, double b) { return a > scalarLike(a, b); }

Tensor where(const Tensor &cond, const Tensor &onTrue, const Tensor &onFalse,
             SourceLoc loc) {
  Scope &s = commonScope("where", {cond, onTrue, onFalse}, loc);
  return build<SelectOp>(s, "where", loc, valueIn(s, cond), valueIn(s, onTrue),
                         valueIn(s, onFalse));
}

Tensor cast(const Tensor &x, DType dtype, SourceLoc loc) {
  Scope &s = commonScope("cast", {x}, loc);
  if (x.dtype() == dtype)
    return x;
  return buildTyped<CastOp>(s, "cast", loc, TensorType{dtype, x.shape()},
                            valueIn(s, x));
}

Tensor cast(const Tensor &x, DType dtype, const Tensor &key, SourceLoc loc) {
  Scope &s = commonScope("cast", {x, key}, loc);
  return buildTyped<CastOp>(s, "cast", loc, TensorType{dtype, x.shape()},
                            valueIn(s, x), valueIn(s, key), mlir::UnitAttr());
}

// Contraction, convolution, pooling.
Tensor matmul(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary<MatmulOp>("matmul", a, b, loc);
}

Tensor conv2d(const Tensor &input, const Tensor &filter, const Axes &strides,
              const Axes &padding, const Axes &dilations, int64_t groups,
              SourceLoc loc) {
  Scope &s = commonScope("conv2d", {input, filter}, loc);
  return build<Conv2DOp>(s, "conv2d", loc, valueIn(s, input), valueIn(s, filter),
                         arr(strides), arr(padding), arr(dilations),
                         i64Attr(groups));
}

Tensor max_pool2d(const Tensor &input, const Axes &window, const Axes &strides,
                  const Axes &padding, SourceLoc loc) {
  return pool<MaxPool2DOp>("max_pool2d", input, window, strides, padding, loc);
}
Tensor avg_pool2d(const Tensor &input, const Axes &window, const Axes &strides,
                  const Axes &padding, SourceLoc loc) {
  return pool<AvgPool2DOp>("avg_pool2d", input, window, strides, padding, loc);
}

// Reductions.
Tensor sum(const Tensor &x, const Axes &axes, bool keepdims, SourceLoc loc) {
  return reduce<SumOp>("sum", x, axes, keepdims, loc);
}
Tensor mean(const Tensor &x, const Axes &axes, bool keepdims, SourceLoc loc) {
  return reduce<MeanOp>("mean", x, axes, keepdims, loc);
}
Tensor max(const Tensor &x, const Axes &axes, bool keepdims, SourceLoc loc) {
  return reduce<MaxOp>("max", x, axes, keepdims, loc);
}
Tensor softmax(const Tensor &x, int64_t axis, SourceLoc loc) {
  Scope &s = commonScope("softmax", {x}, loc);
  return build<SoftmaxOp>(s, "softmax", loc, valueIn(s, x),
                          i64Attr(normAxis(axis, x.rank())));
}
Tensor log_softmax(const Tensor &x, int64_t axis, SourceLoc loc) {
  Scope &s = commonScope("log_softmax", {x}, loc);
  return build<LogSoftmaxOp>(s, "log_softmax", loc, valueIn(s, x),
                             i64Attr(normAxis(axis, x.rank())));
}

// Shapes.
Tensor reshape(const Tensor &x, const Shape &target, SourceLoc loc) {
  const std::string op = "reshape";
  Scope &s = commonScope(op, {x}, loc);
  // A `dyn` in the target of a static input is inferred from the count.
  Shape shape = target;
  int64_t unknown = std::count(target.begin(), target.end(), dyn);
  if (x.type().is_static() && unknown == 1) {
    int64_t count = 1, known = 1;
    for (int64_t d : x.shape())
      count *= d;
    for (int64_t d : target)
      known *= d == dyn ? 1 : d;
    if (known == 0 || count % known != 0)
      fail(op,
           "cannot reshape " + x.type().str() + " to " + format_shape(target),
           loc);
    std::replace(shape.begin(), shape.end(), dyn, count / known);
  }
  TensorType type{x.dtype(), shape};
  if (type == x.type())
    return x;
  return buildTyped<ReshapeOp>(s, op, loc, type, valueIn(s, x));
}

Tensor transpose(const Tensor &x, const Axes &permutation, SourceLoc loc) {
  Scope &s = commonScope("transpose", {x}, loc);
  Axes perm = permutation;
  if (perm.empty())
    for (int64_t i = x.rank() - 1; i >= 0; --i)
      perm.push_back(i);
  for (int64_t &a : perm)
    a = normAxis(a, x.rank());
  return build<TransposeOp>(s, "transpose", loc, valueIn(s, x), arr(perm));
}

Tensor broadcast_to(const Tensor &x, const Shape &shape, SourceLoc loc) {
  const std::string op = "broadcast_to";
  Scope &s = commonScope(op, {x}, loc);
  if (static_cast<int64_t>(shape.size()) < x.rank())
    fail(op,
         "cannot broadcast " + x.type().str() + " to " + format_shape(shape),
         loc);
  TensorType type{x.dtype(), shape};
  if (type == x.type())
    return x;
  // Trailing dims line up (NumPy).
  Axes dims(x.rank());
  std::iota(dims.begin(), dims.end(), int64_t(shape.size()) - x.rank());
  return buildTyped<BroadcastInDimOp>(s, op, loc, type, valueIn(s, x), arr(dims));
}

Tensor slice(const Tensor &x, const std::vector<Range> &ranges, SourceLoc loc) {
  const std::string op = "slice";
  Scope &s = commonScope(op, {x}, loc);
  if (static_cast<int64_t>(ranges.size()) > x.rank())
    fail(op, std::to_string(ranges.size()) + " ranges for " + x.type().str(),
         loc);
  // Python's ranges (negative from the end, clamped) as the op's bounds.
  Axes start, limit, strides;
  for (int64_t d = 0; d < x.rank(); ++d) {
    Range r = d < static_cast<int64_t>(ranges.size()) ? ranges[d] : Range();
    int64_t size = x.shape()[d];
    strides.push_back(r.step);
    if (size == dyn) {
      start.push_back(r.start);
      // The op's -1 is the end; -2 drops the last element.
      limit.push_back(r.limit == Range::end ? -1
                      : r.limit < 0         ? r.limit - 1
                                            : r.limit);
      continue;
    }
    int64_t lo = r.start < 0 ? r.start + size : r.start;
    int64_t hi = r.limit == Range::end ? size
                 : r.limit < 0         ? r.limit + size
                                       : r.limit;
    lo = std::clamp<int64_t>(lo, 0, size);
    hi = std::clamp<int64_t>(hi, 0, size);
    if (hi <= lo)
      fail(op,
           "empty range [" + std::to_string(r.start) + ", " +
               (r.limit == Range::end ? std::string("end")
                                      : std::to_string(r.limit)) +
               ") on dim " + std::to_string(d) + " of " + x.type().str(),
           loc);
    start.push_back(lo);
    limit.push_back(hi);
  }
  return build<SliceOp>(s, op, loc, valueIn(s, x), arr(start), arr(limit),
                        arr(strides));
}

Tensor take(const Tensor &x, int64_t axis, int64_t index, SourceLoc loc) {
  int64_t a = normAxis(axis, x.rank());
  if (a < 0 || a >= x.rank())
    fail("take",
         "axis " + std::to_string(axis) + " out of range for " + x.type().str(),
         loc);
  if (x.shape()[a] == dyn) {
    // A slice of a dynamic dim stays dynamic; a gather of one index drops
    // the axis directly.
    if (index < 0)
      fail("take",
           "a negative index on the dynamic axis " + std::to_string(axis) +
               " of " + x.type().str(),
           loc);
    return gather(x, x.scope().scalar(double(index), DType::i64, loc), a, loc);
  }
  std::vector<Range> ranges(a + 1);
  ranges[a] = Range(index, index == -1 ? Range::end : index + 1);
  Tensor sliced = slice(x, ranges, loc);
  Shape shape = sliced.shape();
  shape.erase(shape.begin() + a);
  return reshape(sliced, shape, loc);
}

Tensor concat(const std::vector<Tensor> &xs, int64_t axis, SourceLoc loc) {
  if (xs.empty())
    fail("concat", "no operands", loc);
  Scope &s = commonScope("concat", xs, loc);
  llvm::SmallVector<mlir::Value> operands;
  for (const Tensor &x : xs)
    operands.push_back(valueIn(s, x));
  return build<ConcatOp>(s, "concat", loc, mlir::ValueRange(operands),
                         i64Attr(normAxis(axis, xs[0].rank())));
}

Tensor stack(const std::vector<Tensor> &xs, int64_t axis, SourceLoc loc) {
  if (xs.empty())
    fail("stack", "no operands", loc);
  int64_t rank = xs[0].rank() + 1;
  int64_t a = normAxis(axis, rank);
  if (a < 0 || a >= rank)
    fail("stack", "axis " + std::to_string(axis) + " out of range", loc);
  std::vector<Tensor> expanded;
  for (const Tensor &x : xs)
    expanded.push_back(expandDims(x, a, loc));
  return concat(expanded, a, loc);
}

Tensor gather(const Tensor &x, const Tensor &indices, int64_t axis,
              SourceLoc loc) {
  Scope &s = commonScope("gather", {x, indices}, loc);
  return build<GatherOp>(s, "gather", loc, valueIn(s, x), valueIn(s, indices),
                         i64Attr(normAxis(axis, x.rank())));
}

Tensor pad(const Tensor &x, const Axes &low, const Axes &high, double value,
           SourceLoc loc) {
  Scope &s = commonScope("pad", {x}, loc);
  Tensor v = scalarLike(x, value, loc);
  return build<PadOp>(s, "pad", loc, valueIn(s, x), valueIn(s, v), arr(low),
                      arr(high), arr(Axes(x.rank(), 0)));
}

Tensor one_hot(const Tensor &labels, int64_t classes, DType dtype,
               SourceLoc loc) {
  if (labels.dtype() != DType::i32 && labels.dtype() != DType::i64)
    fail("one_hot", "labels must be i32 or i64, got " + labels.type().str(),
         loc);
  std::vector<double> values(classes);
  std::iota(values.begin(), values.end(), 0.0);
  Tensor iota = labels.scope().constant(values, {classes}, labels.dtype(), loc);
  Tensor hot = eq(expandDims(labels, labels.rank(), loc), iota, loc);
  return cast(hot, dtype, loc);
}

// Quantization.
namespace {
const char *specialsName(FloatFormat::Specials specials) {
  switch (specials) {
  case FloatFormat::Specials::ieee:
    return "ieee";
  case FloatFormat::Specials::fn:
    return "fn";
  case FloatFormat::Specials::fnuz:
    return "fnuz";
  case FloatFormat::Specials::finite:
    return "finite";
  }
  return "ieee";
}
} // namespace

std::string FloatFormat::str() const {
  return "e" + std::to_string(exponent_bits) + "m" +
         std::to_string(mantissa_bits) + " bias " + std::to_string(bias) +
         " " + specialsName(specials) + (saturate ? " saturating" : "");
}

double FloatFormat::max_finite() const {
  // The dialect's arithmetic; its bit tricks need the verifier's ranges.
  if (exponent_bits < 1 || exponent_bits > 11 || mantissa_bits < 1 ||
      mantissa_bits > 52)
    throw Error("rlx::FloatFormat::max_finite: expects 1 to 11 exponent bits "
                "and 1 to 52 mantissa bits, got " +
                str());
  mlir::rlx::FloatFormat f{static_cast<unsigned>(exponent_bits),
                           static_cast<unsigned>(mantissa_bits),
                           static_cast<int>(bias),
                           mlir::rlx::FloatFormat::Specials::IEEE};
  switch (specials) {
  case Specials::ieee:
    break;
  case Specials::fn:
    f.specials = mlir::rlx::FloatFormat::Specials::NaNOnly;
    break;
  case Specials::fnuz:
    f.specials = mlir::rlx::FloatFormat::Specials::NaNAsNegativeZero;
    break;
  case Specials::finite:
    f.specials = mlir::rlx::FloatFormat::Specials::FiniteOnly;
    break;
  }
  return f.maxFinite();
}

namespace formats {
using S = FloatFormat::Specials;
FloatFormat f8e4m3fn(bool saturate) { return {4, 3, 7, S::fn, saturate}; }
FloatFormat f8e4m3(bool saturate) { return {4, 3, 7, S::ieee, saturate}; }
FloatFormat f8e4m3fnuz(bool saturate) { return {4, 3, 8, S::fnuz, saturate}; }
FloatFormat f8e5m2(bool saturate) { return {5, 2, 15, S::ieee, saturate}; }
FloatFormat f8e5m2fnuz(bool saturate) { return {5, 2, 16, S::fnuz, saturate}; }
FloatFormat f6e3m2fn() { return {3, 2, 3, S::finite, false}; }
FloatFormat f6e2m3fn() { return {2, 3, 1, S::finite, false}; }
FloatFormat f4e2m1fn() { return {2, 1, 1, S::finite, false}; }

FloatFormat named(const std::string &name) {
  static const std::pair<const char *, FloatFormat (*)()> known[] = {
      {"f8e4m3fn", [] { return f8e4m3fn(); }},
      {"f8e4m3", [] { return f8e4m3(); }},
      {"f8e4m3fnuz", [] { return f8e4m3fnuz(); }},
      {"f8e5m2", [] { return f8e5m2(); }},
      {"f8e5m2fnuz", [] { return f8e5m2fnuz(); }},
      {"f6e3m2fn", f6e3m2fn},
      {"f6e2m3fn", f6e2m3fn},
      {"f4e2m1fn", f4e2m1fn}};
  std::string names;
  for (const auto &[n, make] : known) {
    if (name == n)
      return make();
    names += std::string(names.empty() ? "" : ", ") + n;
  }
  throw Error("rlx::formats::named: unknown float format '" + name +
              "' (known: " + names + ")");
}
} // namespace formats

/// fake_quant with `key` (stochastic) or without (null).
static Tensor buildFakeQuant(const Tensor &x, const FloatFormat &format,
                             const Tensor *key, SourceLoc loc) {
  Scope &s = key ? commonScope("fake_quant", {x, *key}, loc)
                 : commonScope("fake_quant", {x}, loc);
  mlir::Builder b = attrs();
  return build<FakeQuantOp>(
      s, "fake_quant", loc, valueIn(s, x),
      key ? valueIn(s, *key) : mlir::Value(), i64Attr(format.exponent_bits),
      i64Attr(format.mantissa_bits), i64Attr(format.bias),
      b.getStringAttr(specialsName(format.specials)),
      format.saturate ? b.getUnitAttr() : mlir::UnitAttr());
}

Tensor fake_quant(const Tensor &x, const FloatFormat &format, SourceLoc loc) {
  return buildFakeQuant(x, format, nullptr, loc);
}

Tensor fake_quant(const Tensor &x, const FloatFormat &format, const Tensor &key,
                  SourceLoc loc) {
  return buildFakeQuant(x, format, &key, loc);
}

Tensor block_dequantize(const Tensor &x, const Tensor &scales, int64_t axis,
                        int64_t block_size, DType dtype, SourceLoc loc) {
  Scope &s = commonScope("block_dequantize", {x, scales}, loc);
  return buildTyped<BlockDequantizeOp>(
      s, "block_dequantize", loc, TensorType{dtype, x.shape()}, valueIn(s, x),
      valueIn(s, scales), i64Attr(normAxis(axis, x.rank())),
      i64Attr(block_size));
}

//===----------------------------------------------------------------------===//
// Tensor methods
//===----------------------------------------------------------------------===//

Tensor Tensor::matmul(const Tensor &rhs, SourceLoc loc) const {
  return rlx::matmul(*this, rhs, loc);
}
Tensor Tensor::sum(const Axes &axes, bool keepdims, SourceLoc loc) const {
  return rlx::sum(*this, axes, keepdims, loc);
}
Tensor Tensor::mean(const Axes &axes, bool keepdims, SourceLoc loc) const {
  return rlx::mean(*this, axes, keepdims, loc);
}
Tensor Tensor::max(const Axes &axes, bool keepdims, SourceLoc loc) const {
  return rlx::max(*this, axes, keepdims, loc);
}
Tensor Tensor::reshape(const Shape &shape, SourceLoc loc) const {
  return rlx::reshape(*this, shape, loc);
}
Tensor Tensor::transpose(const Axes &permutation, SourceLoc loc) const {
  return rlx::transpose(*this, permutation, loc);
}
Tensor Tensor::T(SourceLoc loc) const {
  if (rank() < 2)
    fail("T", "needs rank 2 or more, got " + type().str(), loc);
  Axes perm(rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[rank() - 1], perm[rank() - 2]);
  return rlx::transpose(*this, perm, loc);
}
Tensor Tensor::cast(DType dtype, SourceLoc loc) const {
  return rlx::cast(*this, dtype, loc);
}
Tensor Tensor::exp(SourceLoc loc) const { return rlx::exp(*this, loc); }
Tensor Tensor::log(SourceLoc loc) const { return rlx::log(*this, loc); }
Tensor Tensor::sqrt(SourceLoc loc) const { return rlx::sqrt(*this, loc); }
Tensor Tensor::tanh(SourceLoc loc) const { return rlx::tanh(*this, loc); }
Tensor Tensor::relu(SourceLoc loc) const { return rlx::relu(*this, loc); }
Tensor Tensor::sigmoid(SourceLoc loc) const { return rlx::sigmoid(*this, loc); }
Tensor Tensor::square(SourceLoc loc) const { return rlx::square(*this, loc); }
Tensor Tensor::softmax(int64_t axis, SourceLoc loc) const {
  return rlx::softmax(*this, axis, loc);
}
Tensor Tensor::log_softmax(int64_t axis, SourceLoc loc) const {
  return rlx::log_softmax(*this, axis, loc);
}

} // namespace rlx
