//===- ComposedOps.cpp - ONNX ops built from several rlx ops --------------===//
///
/// \file
/// Elementwise ONNX ops rlx has no single op for, each composed exactly from
/// rlx ops: Floor, Ceil and Round (through an integer cast where the value
/// has a fraction), integer Mod (both remainder conventions), IsNaN, IsInf
/// and Shrink.
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

FailureOr<Value> floorOf(NodeContext &ctx, Value x) {
  FailureOr<Value> t = truncate(ctx, x);
  if (failed(t))
    return failure();
  return adjust(ctx, *t, x, "gt", -1.0);
}

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

/// Round, halves to even: f = floor(x) and d = x - f (exact); up when
/// d > 1/2, or d == 1/2 and f is odd. Not floor(x + 1/2), whose addition
/// rounds (0.49999997 + 0.5 is 1 in f32).
LogicalResult convertRound(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  Type type = typeOf(*x).getElementType();
  FailureOr<Value> f = floorOf(ctx, *x);
  if (failed(f))
    return failure();
  FailureOr<Value> d = ctx.create<SubOp>(*x, *f);
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
  FailureOr<Value> y =
      failed(goUp) ? FailureOr<Value>(failure()) : ctx.create<SelectOp>(*goUp, *up, *f);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Mod of integers: r = a - (a / b) * b (rlx's division truncates), the
/// sign of the dividend (fmod = 1, C's %) or, by adding b where the signs
/// differ, of the divisor (fmod = 0, Python's %). A zero divisor gives
/// what rlx's division by zero (-1) makes of it, not a trap. Floats need
/// an exact remainder (a - trunc(a / b) * b rounds), which rlx lacks.
LogicalResult convertMod(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"fmod"})))
    return failure();
  FailureOr<int64_t> fmod = ctx.getInt("fmod", 0);
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(fmod) || failed(a) || failed(b))
    return failure();
  Type type = typeOf(*a).getElementType();
  if (!isa<IntegerType>(type) || type.isInteger(1))
    return ctx.error() << "Mod of " << type
                       << " is not supported (integers only: a float "
                          "remainder composed from rlx ops would round)";
  if (*fmod != 0 && *fmod != 1)
    return ctx.unsupportedAttribute("fmod", "must be 0 or 1, got " +
                                                Twine(*fmod));
  FailureOr<Value> q = ctx.create<DivOp>(*a, *b);
  FailureOr<Value> qb = failed(q) ? FailureOr<Value>(failure()) : ctx.create<MulOp>(*q, *b);
  FailureOr<Value> r = failed(qb) ? FailureOr<Value>(failure()) : ctx.create<SubOp>(*a, *qb);
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

} // namespace

void addComposedOps(llvm::StringMap<OpConverter> &t) {
  t["Floor"] = convertFloor;
  t["Ceil"] = convertCeil;
  t["Round"] = convertRound;
  t["Mod"] = convertMod;
  t["IsNaN"] = convertIsNaN;
  t["IsInf"] = convertIsInf;
  t["Shrink"] = convertShrink;
}

} // namespace mlir::rlx::onnx_import
