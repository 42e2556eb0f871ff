//===- ComposedOps.cpp - ONNX ops built from several rlx ops --------------===//
///
/// \file
/// Elementwise ONNX ops rlx has no single op for, each composed exactly from
/// rlx ops: Floor, Ceil and Round (through an integer cast where the value
/// has a fraction), integer Mod (both remainder conventions), IsNaN, IsInf,
/// Shrink, the hyperbolic functions (through log1p and expm1 near 0, where
/// the closed forms cancel) and MeanVarianceNormalization.
///
/// Rounding: a float of magnitude at least 2^(precision - 1) is an integer
/// already, so only smaller ones go through the i64 cast (where it is
/// exact); larger ones, infinities and NaNs pass through unchanged (a cast
/// of them would be poison). The sign of a zero result is not kept
/// (ceil(-0.5) gives +0, not -0; they compare equal).
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

#include <cmath>

namespace mlir::rlx::onnx_import {
namespace {

Value castElements(NodeContext &ctx, Value x, Type elementType) {
  return CastOp::create(ctx.builder(), ctx.loc, typeOf(x).clone(elementType),
                        x);
}

/// A float input of `ctx`'s node, or an error.
FailureOr<Value> floatInput(NodeContext &ctx, unsigned i) {
  FailureOr<Value> x = ctx.input(i);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(typeOf(*x).getElementType()))
    return ctx.error() << "input " << i << " must be floats, got "
                       << typeOf(*x).getElementType();
  return x;
}

/// x rounded toward zero.
FailureOr<Value> truncate(NodeContext &ctx, Value x) {
  OpBuilder &b = ctx.builder();
  auto type = cast<FloatType>(typeOf(x).getElementType());
  // Every float at least this large is an integer.
  double integral = std::ldexp(1.0, type.getFPMantissaWidth() - 1);
  FailureOr<Value> magnitude = ctx.create<AbsOp>(x);
  if (failed(magnitude))
    return failure();
  FailureOr<Value> fractional =
      ctx.create<CompareOp>("lt", *magnitude, scalar(ctx, type, integral));
  if (failed(fractional))
    return failure();
  Value through =
      castElements(ctx, castElements(ctx, x, b.getI64Type()), type);
  return ctx.create<SelectOp>(*fractional, through, x);
}

/// t, moved by `step` (+1 or -1) where `direction` of t against x holds.
FailureOr<Value> adjust(NodeContext &ctx, Value t, Value x,
                        StringRef direction, double step) {
  Type type = typeOf(x).getElementType();
  FailureOr<Value> off = ctx.create<CompareOp>(direction, t, x);
  FailureOr<Value> moved = ctx.create<AddOp>(t, scalar(ctx, type, step));
  if (failed(off) || failed(moved))
    return failure();
  return ctx.create<SelectOp>(*off, *moved, t);
}

} // namespace

FailureOr<Value> floorOf(NodeContext &ctx, Value x) {
  FailureOr<Value> t = truncate(ctx, x);
  if (failed(t))
    return failure();
  return adjust(ctx, *t, x, "gt", -1.0);
}

/// Halves to even: f = floor(x) and d = x - f (exact); up when d > 1/2, or
/// d == 1/2 and f is odd. Not floor(x + 1/2), whose addition rounds
/// (0.49999997 + 0.5 is 1 in f32).
FailureOr<Value> roundHalfToEven(NodeContext &ctx, Value x) {
  Type type = typeOf(x).getElementType();
  FailureOr<Value> f = floorOf(ctx, x);
  if (failed(f))
    return failure();
  FailureOr<Value> d = ctx.create<SubOp>(x, *f);
  FailureOr<Value> up = ctx.create<AddOp>(*f, scalar(ctx, type, 1.0));
  FailureOr<Value> halfF = ctx.create<MulOp>(*f, scalar(ctx, type, 0.5));
  if (failed(d) || failed(up) || failed(halfF))
    return failure();
  // f is odd when 2 * floor(f / 2) differs from it.
  FailureOr<Value> halfFloor = floorOf(ctx, *halfF);
  FailureOr<Value> even = failed(halfFloor)
                              ? FailureOr<Value>(failure())
                              : ctx.create<MulOp>(*halfFloor,
                                                  scalar(ctx, type, 2.0));
  FailureOr<Value> odd =
      failed(even) ? FailureOr<Value>(failure()) : ctx.create<CompareOp>("ne", *even, *f);
  FailureOr<Value> above =
      ctx.create<CompareOp>("gt", *d, scalar(ctx, type, 0.5));
  FailureOr<Value> half =
      ctx.create<CompareOp>("eq", *d, scalar(ctx, type, 0.5));
  if (failed(odd) || failed(above) || failed(half))
    return failure();
  FailureOr<Value> tieUp =
      ctx.create<SelectOp>(*half, *odd, scalar(ctx, ctx.builder().getI1Type(), 0));
  FailureOr<Value> goUp = failed(tieUp) ? FailureOr<Value>(failure())
                                        : ctx.create<SelectOp>(
                                              *above,
                                              scalar(ctx, ctx.builder().getI1Type(), 1),
                                              *tieUp);
  return failed(goUp) ? FailureOr<Value>(failure())
                      : ctx.create<SelectOp>(*goUp, *up, *f);
}

namespace {

LogicalResult convertFloor(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  FailureOr<Value> y = failed(x) ? FailureOr<Value>(failure()) : floorOf(ctx, *x);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertCeil(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  FailureOr<Value> t = failed(x) ? FailureOr<Value>(failure()) : truncate(ctx, *x);
  FailureOr<Value> y =
      failed(t) ? FailureOr<Value>(failure()) : adjust(ctx, *t, *x, "lt", 1.0);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Round, halves to even.
LogicalResult convertRound(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  FailureOr<Value> y =
      failed(x) ? FailureOr<Value>(failure()) : roundHalfToEven(ctx, *x);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Mod: rlx.rem, the sign of the dividend (fmod = 1, C's % and fmod) or,
/// by adding b where the signs differ, of the divisor (fmod = 0, Python's
/// %, NumPy's mod for floats). An integer divisor of zero gives a (rlx.rem's
/// x rem 0), not a trap.
LogicalResult convertMod(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"fmod"})))
    return failure();
  FailureOr<int64_t> fmod = ctx.getInt("fmod", 0);
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(fmod) || failed(a) || failed(b))
    return failure();
  Type type = typeOf(*a).getElementType();
  if (type.isInteger(1))
    return ctx.error() << "Mod of booleans is not defined";
  if (*fmod != 0 && *fmod != 1)
    return ctx.unsupportedAttribute("fmod", "must be 0 or 1, got " +
                                                Twine(*fmod));
  FailureOr<Value> r = ctx.create<RemOp>(*a, *b);
  if (failed(r))
    return failure();
  Value y = *r;
  if (*fmod == 0) {
    Value zero = scalar(ctx, type, 0);
    FailureOr<Value> nonzero = ctx.create<CompareOp>("ne", *r, zero);
    FailureOr<Value> rNeg = ctx.create<CompareOp>("lt", *r, zero);
    FailureOr<Value> bNeg = ctx.create<CompareOp>("lt", *b, zero);
    if (failed(nonzero) || failed(rNeg) || failed(bNeg))
      return failure();
    FailureOr<Value> differ = ctx.create<CompareOp>("ne", *rNeg, *bNeg);
    FailureOr<Value> shift =
        failed(differ) ? FailureOr<Value>(failure())
                       : ctx.create<SelectOp>(*nonzero, *differ,
                                              scalar(ctx, ctx.builder().getI1Type(), 0));
    FailureOr<Value> moved = ctx.create<AddOp>(*r, *b);
    FailureOr<Value> z = failed(shift) || failed(moved)
                             ? FailureOr<Value>(failure())
                             : ctx.create<SelectOp>(*shift, *moved, *r);
    if (failed(z))
      return failure();
    y = *z;
  }
  ctx.setOutput(0, y);
  return success();
}

LogicalResult convertIsNaN(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  FailureOr<Value> y =
      failed(x) ? FailureOr<Value>(failure()) : ctx.create<CompareOp>("ne", *x, *x);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertIsInf(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"detect_negative", "detect_positive"})))
    return failure();
  FailureOr<int64_t> negative = ctx.getInt("detect_negative", 1),
                     positive = ctx.getInt("detect_positive", 1);
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(negative) || failed(positive) || failed(x))
    return failure();
  Type type = typeOf(*x).getElementType();
  // Nothing is below -inf: all false in the input's shape, to start from.
  FailureOr<Value> y =
      ctx.create<CompareOp>("lt", *x, scalar(ctx, type, -INFINITY));
  if (failed(y))
    return failure();
  for (auto [detect, inf] :
       {std::pair{*positive, INFINITY}, std::pair{*negative, -INFINITY}}) {
    if (!detect)
      continue;
    FailureOr<Value> is =
        ctx.create<CompareOp>("eq", *x, scalar(ctx, type, inf));
    if (failed(is) ||
        failed(y = ctx.create<SelectOp>(
                   *is, scalar(ctx, ctx.builder().getI1Type(), 1), *y)))
      return failure();
  }
  ctx.setOutput(0, *y);
  return success();
}

/// Shrink: x + bias below -lambd, x - bias above lambd, else 0.
LogicalResult convertShrink(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"bias", "lambd"})))
    return failure();
  FailureOr<float> bias = ctx.getFloat("bias", 0.0f),
                   lambd = ctx.getFloat("lambd", 0.5f);
  FailureOr<Value> x = ctx.input(0);
  if (failed(bias) || failed(lambd) || failed(x))
    return failure();
  Type type = typeOf(*x).getElementType();
  if (type.isInteger(1))
    return ctx.error() << "input 0 must be numbers, got " << type;
  FailureOr<Value> below =
      ctx.create<CompareOp>("lt", *x, scalar(ctx, type, -*lambd));
  FailureOr<Value> above =
      ctx.create<CompareOp>("gt", *x, scalar(ctx, type, *lambd));
  FailureOr<Value> plus = ctx.create<AddOp>(*x, scalar(ctx, type, *bias));
  FailureOr<Value> minus = ctx.create<SubOp>(*x, scalar(ctx, type, *bias));
  if (failed(below) || failed(above) || failed(plus) || failed(minus))
    return failure();
  FailureOr<Value> outer =
      ctx.create<SelectOp>(*above, *minus, scalar(ctx, type, 0));
  FailureOr<Value> y =
      failed(outer) ? FailureOr<Value>(failure()) : ctx.create<SelectOp>(*below, *plus, *outer);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Builds `y = f(x)` for a float x through `build`, which returns failure
/// after reporting.
template <typename Build>
LogicalResult convertFloatUnary(NodeContext &ctx, Build build) {
  FailureOr<Value> x = floatInput(ctx, 0);
  FailureOr<Value> y = failed(x) ? FailureOr<Value>(failure()) : build(*x);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Small helpers over checked builders: each returns failure after an error.
struct Math {
  NodeContext &ctx;
  Type type;
  Value c(double v) { return scalar(ctx, type, v); }
  FailureOr<Value> add(Value a, Value b) { return ctx.create<AddOp>(a, b); }
  FailureOr<Value> sub(Value a, Value b) { return ctx.create<SubOp>(a, b); }
  FailureOr<Value> mul(Value a, Value b) { return ctx.create<MulOp>(a, b); }
  FailureOr<Value> div(Value a, Value b) { return ctx.create<DivOp>(a, b); }
  FailureOr<Value> exp(Value a) { return ctx.create<ExpOp>(a); }
  FailureOr<Value> log(Value a) { return ctx.create<LogOp>(a); }
  FailureOr<Value> sqrt(Value a) { return ctx.create<SqrtOp>(a); }
  FailureOr<Value> neg(Value a) { return ctx.create<NegOp>(a); }
  FailureOr<Value> abs(Value a) { return ctx.create<AbsOp>(a); }
};

/// The hyperbolic functions from exp, log and sqrt. Near 0 the closed
/// forms cancel (sinh's e^x - e^-x, the logs of numbers near 1), so they go
/// through log1p and expm1, built with Goldberg's and Kahan's corrections:
/// log1p(u) = log(w) * u / (w - 1) with w = 1 + u rounded (the ratio
/// corrects the rounding of w), expm1(x) = (e^x - 1) * x / log(e^x).
FailureOr<Value> select(NodeContext &ctx, FailureOr<Value> cond, Value a,
                        Value b) {
  if (failed(cond))
    return failure();
  return ctx.create<SelectOp>(*cond, a, b);
}

FailureOr<Value> log1p(Math &m, Value u) {
  FailureOr<Value> w = m.add(u, m.c(1.0));
  FailureOr<Value> d = failed(w) ? w : m.sub(*w, m.c(1.0));
  FailureOr<Value> lw = failed(w) ? w : m.log(*w);
  if (failed(d) || failed(lw))
    return failure();
  FailureOr<Value> ratio = m.div(u, *d);
  FailureOr<Value> corrected = failed(ratio) ? ratio : m.mul(*lw, *ratio);
  if (failed(corrected))
    return failure();
  // w exact (d == u, large u and infinities among them): log(w) itself;
  // w rounded to 1: u.
  FailureOr<Value> y = select(m.ctx, m.ctx.create<CompareOp>("eq", *d, u),
                              *lw, *corrected);
  if (failed(y))
    return failure();
  return select(m.ctx, m.ctx.create<CompareOp>("eq", *d, m.c(0.0)), u, *y);
}

FailureOr<Value> expm1(Math &m, Value x) {
  FailureOr<Value> u = m.exp(x);
  FailureOr<Value> um1 = failed(u) ? u : m.sub(*u, m.c(1.0));
  FailureOr<Value> lu = failed(u) ? u : m.log(*u);
  if (failed(um1) || failed(lu))
    return failure();
  FailureOr<Value> t = m.mul(*um1, x);
  if (failed(t) || failed(t = m.div(*t, *lu)))
    return failure();
  FailureOr<Value> y = select(m.ctx, m.ctx.create<CompareOp>("eq", *um1, m.c(0.0)),
                              x, *t);
  if (failed(y) ||
      failed(y = select(m.ctx, m.ctx.create<CompareOp>("eq", *um1, m.c(-1.0)),
                        m.c(-1.0), *y)))
    return failure();
  // e^x infinite: infinite.
  return select(m.ctx, m.ctx.create<CompareOp>("eq", *u, m.c(INFINITY)), *u,
                *y);
}

/// f(|x|) with x's sign.
FailureOr<Value> withSign(Math &m, Value x, Value magnitude) {
  FailureOr<Value> negMag = m.neg(magnitude);
  if (failed(negMag))
    return failure();
  return select(m.ctx, m.ctx.create<CompareOp>("lt", x, m.c(0.0)), *negMag,
                magnitude);
}

/// log(2a) for a large a (where a^2 would overflow or lose 1): log(a) + ln 2.
FailureOr<Value> logTwice(Math &m, Value a) {
  FailureOr<Value> l = m.log(a);
  return failed(l) ? l : m.add(*l, m.c(0.69314718055994530942));
}

/// sinh(x) = sign(x) (E + E / (E + 1)) / 2 with E = expm1(|x|) for
/// |x| <= 1; beyond, (e^x - e^-x) / 2 (no cancellation, no inf / inf).
LogicalResult convertSinh(NodeContext &ctx) {
  return convertFloatUnary(ctx, [&](Value x) -> FailureOr<Value> {
    Math m{ctx, typeOf(x).getElementType()};
    FailureOr<Value> a = m.abs(x);
    FailureOr<Value> e = failed(a) ? a : expm1(m, *a);
    if (failed(e))
      return failure();
    FailureOr<Value> e1 = m.add(*e, m.c(1.0));
    FailureOr<Value> q = failed(e1) ? e1 : m.div(*e, *e1);
    FailureOr<Value> small = failed(q) ? q : m.add(*e, *q);
    if (failed(small) || failed(small = m.mul(*small, m.c(0.5))) ||
        failed(small = withSign(m, x, *small)))
      return failure();
    FailureOr<Value> ex = m.exp(x), nx = m.neg(x);
    FailureOr<Value> emx = failed(nx) ? nx : m.exp(*nx);
    if (failed(ex) || failed(emx))
      return failure();
    FailureOr<Value> large = m.sub(*ex, *emx);
    if (failed(large) || failed(large = m.mul(*large, m.c(0.5))))
      return failure();
    return select(ctx, ctx.create<CompareOp>("le", *a, m.c(1.0)), *small,
                  *large);
  });
}

LogicalResult convertCosh(NodeContext &ctx) {
  return convertFloatUnary(ctx, [&](Value x) -> FailureOr<Value> {
    Math m{ctx, typeOf(x).getElementType()};
    FailureOr<Value> ex = m.exp(x), nx = m.neg(x);
    FailureOr<Value> emx = failed(nx) ? nx : m.exp(*nx);
    if (failed(ex) || failed(emx))
      return failure();
    FailureOr<Value> s = m.add(*ex, *emx);
    return failed(s) ? s : m.mul(*s, m.c(0.5));
  });
}

/// asinh(x) = sign(x) log1p(a + a^2 / (1 + sqrt(1 + a^2))), a = |x|;
/// log(2a) above 2^26 (a^2 + 1 is a^2 there).
LogicalResult convertAsinh(NodeContext &ctx) {
  return convertFloatUnary(ctx, [&](Value x) -> FailureOr<Value> {
    Math m{ctx, typeOf(x).getElementType()};
    FailureOr<Value> a = m.abs(x);
    if (failed(a))
      return failure();
    FailureOr<Value> a2 = m.mul(*a, *a);
    FailureOr<Value> r = failed(a2) ? a2 : m.add(*a2, m.c(1.0));
    if (failed(r) || failed(r = m.sqrt(*r)) || failed(r = m.add(*r, m.c(1.0))) ||
        failed(r = m.div(*a2, *r)) || failed(r = m.add(*r, *a)) ||
        failed(r = log1p(m, *r)))
      return failure();
    FailureOr<Value> big = logTwice(m, *a);
    if (failed(big))
      return failure();
    FailureOr<Value> mag = select(
        ctx, ctx.create<CompareOp>("gt", *a, m.c(67108864.0)), *big, *r);
    return failed(mag) ? mag : withSign(m, x, *mag);
  });
}

/// acosh(x) = log1p(t + sqrt(2t + t^2)), t = x - 1 (exact near 1); log(2x)
/// above 2^26. NaN below 1, as ONNX's.
LogicalResult convertAcosh(NodeContext &ctx) {
  return convertFloatUnary(ctx, [&](Value x) -> FailureOr<Value> {
    Math m{ctx, typeOf(x).getElementType()};
    FailureOr<Value> t = m.sub(x, m.c(1.0));
    if (failed(t))
      return failure();
    FailureOr<Value> t2 = m.add(*t, m.c(2.0));
    FailureOr<Value> r = failed(t2) ? t2 : m.mul(*t, *t2);
    if (failed(r) || failed(r = m.sqrt(*r)) || failed(r = m.add(*r, *t)) ||
        failed(r = log1p(m, *r)))
      return failure();
    FailureOr<Value> big = logTwice(m, x);
    if (failed(big))
      return failure();
    return select(ctx, ctx.create<CompareOp>("gt", x, m.c(67108864.0)), *big,
                  *r);
  });
}

/// atanh(x) = sign(x) log1p(2a / (1 - a)) / 2, a = |x|.
LogicalResult convertAtanh(NodeContext &ctx) {
  return convertFloatUnary(ctx, [&](Value x) -> FailureOr<Value> {
    Math m{ctx, typeOf(x).getElementType()};
    FailureOr<Value> a = m.abs(x);
    if (failed(a))
      return failure();
    FailureOr<Value> na = m.neg(*a);
    FailureOr<Value> den = failed(na) ? na : m.add(*na, m.c(1.0));
    FailureOr<Value> num = m.mul(*a, m.c(2.0));
    if (failed(den) || failed(num))
      return failure();
    FailureOr<Value> r = m.div(*num, *den);
    if (failed(r) || failed(r = log1p(m, *r)) ||
        failed(r = m.mul(*r, m.c(0.5))))
      return failure();
    return withSign(m, x, *r);
  });
}

/// tan(x) = sin(x) / cos(x).
LogicalResult convertTan(NodeContext &ctx) {
  return convertFloatUnary(ctx, [&](Value x) -> FailureOr<Value> {
    Math m{ctx, typeOf(x).getElementType()};
    FailureOr<Value> s = ctx.create<SinOp>(x), c = ctx.create<CosOp>(x);
    if (failed(s) || failed(c))
      return failure();
    return m.div(*s, *c);
  });
}

/// asin(x) = atan(x / sqrt((1 - x)(1 + x))): the product keeps 1 - x^2
/// exact near |x| = 1, where the quotient goes to +-inf and atan to
/// +-pi/2; NaN beyond, as ONNX's.
LogicalResult convertAsin(NodeContext &ctx) {
  return convertFloatUnary(ctx, [&](Value x) -> FailureOr<Value> {
    Math m{ctx, typeOf(x).getElementType()};
    FailureOr<Value> lo = m.sub(m.c(1.0), x), hi = m.add(m.c(1.0), x);
    if (failed(lo) || failed(hi))
      return failure();
    FailureOr<Value> r = m.mul(*lo, *hi);
    if (failed(r) || failed(r = m.sqrt(*r)) || failed(r = m.div(x, *r)))
      return failure();
    return ctx.create<AtanOp>(*r);
  });
}

/// acos(x) = 2 atan(sqrt((1 - x) / (1 + x))): no cancellation near 1 (as
/// pi/2 - asin(x) would have), pi at -1 through atan(inf); NaN beyond.
LogicalResult convertAcos(NodeContext &ctx) {
  return convertFloatUnary(ctx, [&](Value x) -> FailureOr<Value> {
    Math m{ctx, typeOf(x).getElementType()};
    FailureOr<Value> lo = m.sub(m.c(1.0), x), hi = m.add(m.c(1.0), x);
    if (failed(lo) || failed(hi))
      return failure();
    FailureOr<Value> r = m.div(*lo, *hi);
    if (failed(r) || failed(r = m.sqrt(*r)) ||
        failed(r = ctx.create<AtanOp>(*r)))
      return failure();
    return m.mul(*r, m.c(2.0));
  });
}

/// MeanVarianceNormalization: (x - mean) / (std + 1e-9) over `axes`, the
/// variance as the mean of squared deviations (ONNX writes E[x^2] - E[x]^2,
/// equal in exact arithmetic; this form cannot go negative).
LogicalResult convertMeanVarianceNormalization(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"axes"})))
    return failure();
  FailureOr<Ints> axesAttr = ctx.getInts("axes", {0, 2, 3});
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(axesAttr) || failed(x))
    return failure();
  Ints axes;
  for (int64_t axis : *axesAttr) {
    FailureOr<int64_t> a = normalizeAxis(ctx, axis, typeOf(*x).getRank());
    if (failed(a))
      return failure();
    if (!llvm::is_contained(axes, *a))
      axes.push_back(*a);
  }
  llvm::sort(axes);
  Math m{ctx, typeOf(*x).getElementType()};
  FailureOr<Value> mean = ctx.create<MeanOp>(*x, axes, true);
  FailureOr<Value> dev = failed(mean) ? mean : m.sub(*x, *mean);
  FailureOr<Value> sq = failed(dev) ? dev : m.mul(*dev, *dev);
  FailureOr<Value> var =
      failed(sq) ? sq : ctx.create<MeanOp>(*sq, axes, true);
  FailureOr<Value> sd = failed(var) ? var : m.sqrt(*var);
  if (failed(sd) || failed(sd = m.add(*sd, m.c(1e-9))))
    return failure();
  FailureOr<Value> y = m.div(*dev, *sd);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

} // namespace

void addComposedOps(llvm::StringMap<OpConverter> &t) {
  t["MeanVarianceNormalization"] = convertMeanVarianceNormalization;
  t["Sinh"] = convertSinh;
  t["Cosh"] = convertCosh;
  t["Asinh"] = convertAsinh;
  t["Acosh"] = convertAcosh;
  t["Atanh"] = convertAtanh;
  t["Tan"] = convertTan;
  t["Asin"] = convertAsin;
  t["Acos"] = convertAcos;
  t["Floor"] = convertFloor;
  t["Ceil"] = convertCeil;
  t["Round"] = convertRound;
  t["Mod"] = convertMod;
  t["IsNaN"] = convertIsNaN;
  t["IsInf"] = convertIsInf;
  t["Shrink"] = convertShrink;
}

} // namespace mlir::rlx::onnx_import
