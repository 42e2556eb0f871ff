//===- ElementwiseOps.cpp - ONNX elementwise ops --------------------------===//
///
/// \file
/// Arithmetic, activations, comparisons, logic, Where, Cast, Identity and
/// Dropout: rlx's elementwise ops broadcast as ONNX's do (NumPy's rules).
/// Integer arithmetic on values known at import folds (shape arithmetic).
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

#include <cmath>
#include <numeric>

namespace mlir::rlx::onnx_import {
namespace {

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy> LogicalResult convertUnary(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> y = ctx.create<OpTy>(*x);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Folds an integer binary op on two known operands.
template <typename Fn> bool foldIntBinary(NodeContext &ctx, Fn fn) {
  std::optional<DenseElementsAttr> a = ctx.constantInput(0),
                                   b = ctx.constantInput(1);
  if (!isFoldableInts(a) || !isFoldableInts(b) ||
      a->getElementType() != b->getElementType())
    return false;
  ArrayRef<int64_t> sa = a->getType().getShape(), sb = b->getType().getShape();
  std::optional<Ints> shape = broadcastShapes(sa, sb);
  if (!shape)
    return false;
  Ints va = toInts(*a), vb = toInts(*b), out;
  int64_t count = ShapedType::getNumElements(*shape);
  for (int64_t i = 0; i < count; ++i) {
    int64_t x = va[broadcastIndex(sa, *shape, i)];
    int64_t y = vb[broadcastIndex(sb, *shape, i)];
    std::optional<int64_t> r = fn(x, y);
    if (!r)
      return false;
    out.push_back(*r);
  }
  ctx.setConstantOutput(0, intsAttr(ctx.builder().getContext(), out, *shape,
                                    a->getElementType()));
  return true;
}

template <typename OpTy, typename Fold>
LogicalResult convertBinary(NodeContext &ctx, Fold fold) {
  if (foldIntBinary(ctx, fold))
    return success();
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = ctx.create<OpTy>(*a, *b);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Min, Max, Sum, Mean: variadic, folded pairwise.
template <typename OpTy>
LogicalResult convertVariadic(NodeContext &ctx, bool mean = false) {
  if (ctx.numInputs() == 0)
    return ctx.error() << "needs at least one input";
  FailureOr<Value> acc = ctx.input(0);
  if (failed(acc))
    return failure();
  for (unsigned i = 1; i < ctx.numInputs(); ++i) {
    FailureOr<Value> next = ctx.input(i);
    if (failed(next) || failed(acc = ctx.create<OpTy>(*acc, *next)))
      return failure();
  }
  if (mean && ctx.numInputs() > 1) {
    Value n = scalar(ctx, typeOf(*acc).getElementType(), ctx.numInputs());
    if (failed(acc = ctx.create<DivOp>(*acc, n)))
      return failure();
  }
  ctx.setOutput(0, *acc);
  return success();
}

LogicalResult convertPow(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  // Small constant exponents (x^2 in exported LayerNorms and GELUs) as
  // products, square roots or divisions: cheaper than a general power, and
  // they fuse with their neighbours as plain arithmetic.
  if (std::optional<DenseElementsAttr> e = ctx.constantInput(1);
      e && e->isSplat()) {
    double v =
        isa<FloatType>(e->getElementType())
            ? e->getSplatValue<APFloat>().convertToDouble()
            : static_cast<double>(e->getSplatValue<APInt>().getSExtValue());
    FailureOr<Value> y = failure();
    if (v == 1.0)
      y = *x;
    else if (v == 2.0)
      y = ctx.create<MulOp>(*x, *x);
    else if (v == 3.0) {
      FailureOr<Value> sq = ctx.create<MulOp>(*x, *x);
      if (failed(sq))
        return failure();
      y = ctx.create<MulOp>(*sq, *x);
    } else if (v == 0.5)
      y = ctx.create<SqrtOp>(*x);
    else if (v == -0.5)
      y = ctx.create<RsqrtOp>(*x);
    else if (v == -1.0)
      y = ctx.create<DivOp>(scalar(ctx, elementType, 1.0), *x);
    if (succeeded(y)) {
      ctx.setOutput(0, *y);
      return success();
    }
  }
  FailureOr<Value> e = ctx.input(1);
  if (failed(e))
    return failure();
  Value exponent = *e, base = *x;
  // An integer base: the power in f64 (exact for integer results up to
  // 2^53), cast back to the base's type as ONNX's result type is.
  Type computeType =
      isa<FloatType>(elementType) ? elementType : ctx.builder().getF64Type();
  auto castTo = [&](Value v, Type t) -> Value {
    if (typeOf(v).getElementType() == t)
      return v;
    return CastOp::create(ctx.builder(), ctx.loc, typeOf(v).clone(t), v);
  };
  if (elementType.isInteger(1))
    return ctx.error() << "input 0 must be numbers, got " << elementType;
  FailureOr<Value> y = ctx.create<PowOp>(castTo(base, computeType),
                                         castTo(exponent, computeType));
  if (failed(y))
    return failure();
  ctx.setOutput(0, castTo(*y, elementType));
  return success();
}

LogicalResult convertReciprocal(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> y =
      ctx.create<DivOp>(scalar(ctx, typeOf(*x).getElementType(), 1.0), *x);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertLeakyRelu(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 0.01f);
  FailureOr<Value> x = ctx.input(0);
  if (failed(alpha) || failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  Value zero = scalar(ctx, elementType, 0.0);
  FailureOr<Value> positive = ctx.create<CompareOp>("gt", *x, zero);
  FailureOr<Value> scaled =
      ctx.create<MulOp>(*x, scalar(ctx, elementType, *alpha));
  if (failed(positive) || failed(scaled))
    return failure();
  FailureOr<Value> y = ctx.create<SelectOp>(*positive, *x, *scaled);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// HardSigmoid: max(0, min(1, alpha x + beta)).
FailureOr<Value> hardSigmoid(NodeContext &ctx, Value x, double alpha,
                             double beta) {
  Type elementType = typeOf(x).getElementType();
  FailureOr<Value> y = ctx.create<MulOp>(x, scalar(ctx, elementType, alpha));
  if (failed(y) ||
      failed(y = ctx.create<AddOp>(*y, scalar(ctx, elementType, beta))) ||
      failed(y = ctx.create<MinimumOp>(*y, scalar(ctx, elementType, 1.0))))
    return failure();
  return ctx.create<MaximumOp>(*y, scalar(ctx, elementType, 0.0));
}

LogicalResult convertHardSigmoid(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 0.2f),
                   beta = ctx.getFloat("beta", 0.5f);
  FailureOr<Value> x = ctx.input(0);
  if (failed(alpha) || failed(beta) || failed(x))
    return failure();
  FailureOr<Value> y = hardSigmoid(ctx, *x, *alpha, *beta);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertHardSwish(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> gate = hardSigmoid(ctx, *x, 1.0 / 6.0, 0.5);
  if (failed(gate))
    return failure();
  FailureOr<Value> y = ctx.create<MulOp>(*x, *gate);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertClip(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Value y = *x;
  if (ctx.hasInput(1)) {
    FailureOr<Value> lo = ctx.input(1);
    FailureOr<Value> r = failed(lo) ? FailureOr<Value>(failure())
                                    : ctx.create<MaximumOp>(y, *lo);
    if (failed(r))
      return failure();
    y = *r;
  }
  if (ctx.hasInput(2)) {
    FailureOr<Value> hi = ctx.input(2);
    FailureOr<Value> r = failed(hi) ? FailureOr<Value>(failure())
                                    : ctx.create<MinimumOp>(y, *hi);
    if (failed(r))
      return failure();
    y = *r;
  }
  ctx.setOutput(0, y);
  return success();
}

/// Folds a comparison or logic op on known integers or booleans (a shape
/// test deciding an If's branch at import) into known booleans.
template <typename Fn> bool foldToBool(NodeContext &ctx, unsigned arity, Fn fn) {
  SmallVector<DenseElementsAttr> known;
  for (unsigned i = 0; i < arity; ++i) {
    std::optional<DenseElementsAttr> v = ctx.constantInput(i);
    if (!v || !isa<IntegerType>(v->getElementType()) ||
        v->getNumElements() > 4096 ||
        (i > 0 && v->getElementType() != known[0].getElementType()))
      return false;
    known.push_back(*v);
  }
  ArrayRef<int64_t> sa = known[0].getType().getShape();
  ArrayRef<int64_t> sb = known[arity - 1].getType().getShape();
  std::optional<Ints> shape = broadcastShapes(sa, sb);
  if (!shape)
    return false;
  Ints va = toInts(known[0]), vb = toInts(known[arity - 1]);
  SmallVector<bool> out;
  int64_t count = ShapedType::getNumElements(*shape);
  for (int64_t i = 0; i < count; ++i)
    out.push_back(fn(va[broadcastIndex(sa, *shape, i)],
                     vb[broadcastIndex(sb, *shape, i)]));
  ctx.setConstantOutput(
      0, DenseElementsAttr::get(
             RankedTensorType::get(*shape, ctx.builder().getI1Type()),
             ArrayRef<bool>(out)));
  return true;
}

template <const char *Direction>
LogicalResult convertCompare(NodeContext &ctx) {
  StringRef direction = Direction;
  if (foldToBool(ctx, 2, [&](int64_t a, int64_t b) {
        return direction == "eq"   ? a == b
               : direction == "lt" ? a < b
               : direction == "le" ? a <= b
               : direction == "gt" ? a > b
                                   : a >= b;
      }))
    return success();
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = ctx.create<CompareOp>(Direction, *a, *b);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}
constexpr char kEq[] = "eq", kLt[] = "lt", kLe[] = "le", kGt[] = "gt",
               kGe[] = "ge";

LogicalResult convertNot(NodeContext &ctx) {
  if (foldToBool(ctx, 1, [](int64_t a, int64_t) { return a == 0; }))
    return success();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> y = ctx.create<CompareOp>(
      "eq", *x, scalar(ctx, ctx.builder().getI1Type(), 0));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// And: a ? b : false; Or: a ? true : b.
LogicalResult convertLogical(NodeContext &ctx, bool isAnd) {
  if (foldToBool(ctx, 2, [&](int64_t a, int64_t b) {
        return isAnd ? (a && b) : (a || b);
      }))
    return success();
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  Value constant = scalar(ctx, ctx.builder().getI1Type(), isAnd ? 0 : 1);
  FailureOr<Value> y = isAnd ? ctx.create<SelectOp>(*a, *b, constant)
                             : ctx.create<SelectOp>(*a, constant, *b);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertXor(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = ctx.create<CompareOp>("ne", *a, *b);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// BitShift of uint8 ... uint64 (held in i32 or i64): x times or divided by
/// 2^y, the power a gather at y from a table; shifts by the type's width or
/// more give 0, as NumPy's do. The product wraps into the type's range
/// like any held result (importNodes). A uint64 of 2^63 or more (negative
/// in i64) shifts right as (x - 2^63) / 2^y + 2^(63 - y).
LogicalResult convertBitShift(NodeContext &ctx) {
  FailureOr<std::string> direction = ctx.getString("direction", "");
  if (failed(direction) || failed(ctx.checkKnownAttributes({"direction"})))
    return failure();
  if (*direction != "LEFT" && *direction != "RIGHT")
    return ctx.unsupportedAttribute("direction", "'" + *direction +
                                                     "' (LEFT or RIGHT)");
  int32_t held = ctx.inputHeldType(0);
  if (!held || held == onnx::TensorProto::INT16 ||
      ctx.inputHeldType(1) != held)
    return ctx.error() << "shifts unsigned integers (uint8 ... uint64), both "
                          "inputs of one type";
  bool left = *direction == "LEFT";
  FailureOr<Value> x = ctx.input(0), y = ctx.input(1);
  if (failed(x) || failed(y))
    return failure();
  MLIRContext *context = ctx.builder().getContext();
  Type type = typeOf(*x).getElementType();
  int64_t bits = boundaryElementTypeOf(context, held).getIntOrFloatBitWidth();
  // 2^k for k below the width; at the width, 0 to the left and 2^width
  // (x is below it: a quotient of 0) to the right, or for uint64 -2^63
  // (a quotient of 0 for the x of 0 ... 2^63 - 1 it divides).
  Ints powers;
  for (int64_t k = 0; k < bits; ++k)
    powers.push_back(static_cast<int64_t>(uint64_t(1) << k));
  powers.push_back(left ? 0 : bits < 64 ? int64_t(1) << bits : INT64_MIN);
  auto tableOf = [&](ArrayRef<int64_t> values) {
    return ctx.importer.materialize(
        intsAttr(context, values, {bits + 1}, type), ctx.loc);
  };
  Value table = tableOf(powers);
  // Shifts past the width (and, for uint64, those negative in i64) read the
  // table's last entry.
  Value width = scalar(ctx, type, static_cast<double>(bits));
  FailureOr<Value> negative =
      ctx.create<CompareOp>("lt", *y, scalar(ctx, type, 0));
  FailureOr<Value> shift =
      failed(negative) ? negative : ctx.create<SelectOp>(*negative, width, *y);
  if (succeeded(shift))
    shift = ctx.create<MinimumOp>(*shift, width);
  FailureOr<Value> power =
      failed(shift) ? shift : ctx.create<GatherOp>(table, *shift, uint64_t(0));
  if (failed(power))
    return failure();
  FailureOr<Value> result = left ? ctx.create<MulOp>(*x, *power)
                                 : ctx.create<DivOp>(*x, *power);
  if (failed(result))
    return failure();
  if (!left && bits == 64) {
    // x >= 2^63: its top bit shifted on its own, 2^(63 - y) (0 past 63).
    Ints tops;
    for (int64_t k = 0; k <= 64; ++k)
      tops.push_back(k == 64 ? 0 : static_cast<int64_t>(uint64_t(1) << (63 - k)));
    Value min = scalar(ctx, type, -9223372036854775808.0);
    FailureOr<Value> high = ctx.create<GatherOp>(tableOf(tops), *shift,
                                                 uint64_t(0));
    FailureOr<Value> rest = ctx.create<SubOp>(*x, min);
    FailureOr<Value> top = ctx.create<CompareOp>("lt", *x, scalar(ctx, type, 0));
    if (failed(high) || failed(rest) || failed(top) ||
        failed(rest = ctx.create<DivOp>(*rest, *power)) ||
        failed(rest = ctx.create<AddOp>(*rest, *high)) ||
        failed(result = ctx.create<SelectOp>(*top, *rest, *result)))
      return failure();
  }
  ctx.setOutput(0, *result);
  return success();
}

/// Cast of input 0 to the ONNX type `to`.
LogicalResult castInputTo(NodeContext &ctx, int32_t to) {
  MLIRContext *context = ctx.builder().getContext();
  // To uint8 ... uint64 or int16: to the type it is held in, through the
  // ONNX type itself (its wrap-around); from one: through its ONNX type too,
  // so that conversions read it as unsigned.
  int32_t heldTo = heldElementTypeOf(context, to) ? to : 0;
  int32_t heldFrom = ctx.inputHeldType(0);
  Type elementType = heldTo ? heldElementTypeOf(context, heldTo)
                            : elementTypeOf(context, to);
  if (!elementType)
    return ctx.unsupportedAttribute(
        "to", "casting to " + onnxTypeName(to) + " is not supported");
  std::optional<DenseElementsAttr> known = ctx.constantInput(0);
  if (!heldTo && !heldFrom && isFoldableInts(known) &&
      isa<IntegerType>(elementType) && !elementType.isInteger(1)) {
    ctx.setConstantOutput(0,
                          intsAttr(ctx.builder().getContext(), toInts(*known),
                                   known->getType().getShape(), elementType));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (heldTo)
    ctx.markOutputHeld(0, heldTo);
  if (heldTo && heldTo == heldFrom) {
    ctx.setOutput(0, *x);
    return success();
  }
  Value y = *x;
  if (heldFrom)
    y = castHeldToBoundary(ctx.builder(), ctx.loc, y, heldFrom);
  Type target = heldTo ? boundaryElementTypeOf(context, heldTo) : elementType;
  if (typeOf(y).getElementType() != target)
    y = CastOp::create(ctx.builder(), ctx.loc, typeOf(y).clone(target), y);
  if (heldTo)
    y = CastOp::create(ctx.builder(), ctx.loc, typeOf(y).clone(elementType),
                       y);
  ctx.setOutput(0, y);
  return success();
}

LogicalResult convertCast(NodeContext &ctx) {
  const onnx::AttributeProto *to = ctx.attribute("to");
  if (!to || to->type() != onnx::AttributeProto::INT)
    return ctx.error() << "attribute 'to' (an int) is missing";
  return castInputTo(ctx, to->i());
}

/// CastLike: Cast to the element type of input 1 (its ONNX type when rlx
/// holds it in a wider one).
LogicalResult convertCastLike(NodeContext &ctx) {
  if (int32_t held = ctx.inputHeldType(1))
    return castInputTo(ctx, held);
  FailureOr<Value> x = ctx.input(0), like = ctx.input(1);
  if (failed(x) || failed(like))
    return failure();
  if (ctx.inputHeldType(0)) {
    // From a held value: Cast's path, which reads it as its ONNX type.
    Type t = typeOf(*like).getElementType();
    for (int32_t onnxType :
         {onnx::TensorProto::FLOAT, onnx::TensorProto::DOUBLE,
          onnx::TensorProto::FLOAT16, onnx::TensorProto::BFLOAT16,
          onnx::TensorProto::INT8, onnx::TensorProto::INT32,
          onnx::TensorProto::INT64, onnx::TensorProto::BOOL})
      if (elementTypeOf(ctx.builder().getContext(), onnxType) == t)
        return castInputTo(ctx, onnxType);
  }
  Type elementType = typeOf(*like).getElementType();
  ctx.setOutput(0, typeOf(*x).getElementType() == elementType
                       ? *x
                       : CastOp::create(ctx.builder(), ctx.loc,
                                        typeOf(*x).clone(elementType), *x)
                             .getResult());
  return success();
}

LogicalResult convertWhere(NodeContext &ctx) {
  FailureOr<Value> c = ctx.input(0), a = ctx.input(1), b = ctx.input(2);
  if (failed(c) || failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = ctx.create<SelectOp>(*c, *a, *b);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertIdentity(NodeContext &ctx) {
  if (std::optional<DenseElementsAttr> known = ctx.constantInput(0);
      known && !ctx.importer.initializers.count(ctx.node.input(0))) {
    ctx.setConstantOutput(0, *known);
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, *x);
  return success();
}

/// Dropout at inference: the identity (its mask output unsupported).
LogicalResult convertDropout(NodeContext &ctx) {
  if (std::optional<DenseElementsAttr> training = ctx.constantInput(2);
      training && !training->getValues<APInt>().empty() &&
      !(*training->getValues<APInt>().begin()).isZero())
    return ctx.error() << "training_mode must be false (inference import)";
  if (ctx.hasInput(2) && !ctx.constantInput(2))
    return ctx.error() << "training_mode must be known at import time";
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, *x);
  if (ctx.hasOutput(1)) {
    // The mask of an inference Dropout keeps everything: true in x's
    // shape, broadcast by a select that reads none of x's values.
    Type i1 = ctx.builder().getI1Type();
    FailureOr<Value> carrier = ctx.create<CompareOp>("eq", *x, *x);
    FailureOr<Value> mask =
        failed(carrier) ? carrier
                        : ctx.create<SelectOp>(scalar(ctx, i1, 1),
                                               scalar(ctx, i1, 1), *carrier);
    if (failed(mask))
      return failure();
    ctx.setOutput(1, *mask);
  }
  return success();
}

/// `select(x > 0, x, negative(x))`: the activations that differ below 0.
template <typename Negative>
LogicalResult convertPiecewise(NodeContext &ctx, Negative negative) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  FailureOr<Value> positive =
      ctx.create<CompareOp>("gt", *x, scalar(ctx, elementType, 0.0));
  FailureOr<Value> below = negative(*x);
  if (failed(positive) || failed(below))
    return failure();
  FailureOr<Value> y = ctx.create<SelectOp>(*positive, *x, *below);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// alpha (e^x - 1), Elu's and Selu's negative side.
FailureOr<Value> expm1Scaled(NodeContext &ctx, Value x, double alpha) {
  Type elementType = typeOf(x).getElementType();
  FailureOr<Value> e = ctx.create<ExpOp>(x);
  if (failed(e) ||
      failed(e = ctx.create<SubOp>(*e, scalar(ctx, elementType, 1.0))))
    return failure();
  return ctx.create<MulOp>(*e, scalar(ctx, elementType, alpha));
}

LogicalResult convertElu(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 1.0f);
  if (failed(alpha))
    return failure();
  return convertPiecewise(ctx,
                          [&](Value x) { return expm1Scaled(ctx, x, *alpha); });
}

LogicalResult convertSelu(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 1.67326319217681884765625f),
                   gamma = ctx.getFloat("gamma", 1.05070102214813232421875f);
  FailureOr<Value> x = ctx.input(0);
  if (failed(alpha) || failed(gamma) || failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  FailureOr<Value> positive =
      ctx.create<CompareOp>("gt", *x, scalar(ctx, elementType, 0.0));
  FailureOr<Value> below = expm1Scaled(ctx, *x, *alpha);
  if (failed(positive) || failed(below))
    return failure();
  FailureOr<Value> y = ctx.create<SelectOp>(*positive, *x, *below);
  if (failed(y) ||
      failed(y = ctx.create<MulOp>(*y, scalar(ctx, elementType, *gamma))))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Celu: max(0, x) + min(0, alpha (e^(x / alpha) - 1)).
LogicalResult convertCelu(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 1.0f);
  FailureOr<Value> x = ctx.input(0);
  if (failed(alpha) || failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  FailureOr<Value> scaled =
      ctx.create<DivOp>(*x, scalar(ctx, elementType, *alpha));
  if (failed(scaled))
    return failure();
  FailureOr<Value> below = expm1Scaled(ctx, *scaled, *alpha);
  if (failed(below) || failed(below = ctx.create<MinimumOp>(
                                  *below, scalar(ctx, elementType, 0.0))))
    return failure();
  FailureOr<Value> y = ctx.create<ReluOp>(*x);
  if (failed(y) || failed(y = ctx.create<AddOp>(*y, *below)))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertThresholdedRelu(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 1.0f);
  FailureOr<Value> x = ctx.input(0);
  if (failed(alpha) || failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  FailureOr<Value> above =
      ctx.create<CompareOp>("gt", *x, scalar(ctx, elementType, *alpha));
  if (failed(above))
    return failure();
  FailureOr<Value> y =
      ctx.create<SelectOp>(*above, *x, scalar(ctx, elementType, 0.0));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// PRelu. A 1-D slope of x's channel count that does not broadcast
/// against x's last dim is per channel (dim 1), as opsets before 7 define
/// it (ONNX's version converter keeps such slopes; under NumPy's rule they
/// would be invalid).
LogicalResult convertPRelu(NodeContext &ctx) {
  FailureOr<Value> slope = ctx.input(1);
  FailureOr<Value> x = ctx.input(0);
  if (failed(slope) || failed(x))
    return failure();
  RankedTensorType xType = typeOf(*x), slopeType = typeOf(*slope);
  if (slopeType.getRank() == 1 && xType.getRank() >= 3 &&
      slopeType.hasStaticShape() && slopeType.getDimSize(0) != 1 &&
      xType.getDimSize(1) == slopeType.getDimSize(0) &&
      !ShapedType::isDynamic(xType.getShape().back()) &&
      xType.getShape().back() != slopeType.getDimSize(0)) {
    Ints perChannel(xType.getRank() - 1, 1);
    perChannel[0] = slopeType.getDimSize(0);
    *slope = reshape(ctx, *slope, perChannel);
  }
  return convertPiecewise(
      ctx, [&](Value x) { return ctx.create<MulOp>(x, *slope); });
}

/// Softplus as max(x, 0) + log(1 + e^-|x|): log(1 + e^x) overflows.
LogicalResult convertSoftplus(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  FailureOr<Value> a = ctx.create<AbsOp>(*x);
  if (failed(a) || failed(a = ctx.create<NegOp>(*a)) ||
      failed(a = ctx.create<ExpOp>(*a)) ||
      failed(a = ctx.create<AddOp>(*a, scalar(ctx, elementType, 1.0))) ||
      failed(a = ctx.create<LogOp>(*a)))
    return failure();
  FailureOr<Value> y = ctx.create<ReluOp>(*x);
  if (failed(y) || failed(y = ctx.create<AddOp>(*y, *a)))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertSoftsign(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  FailureOr<Value> d = ctx.create<AbsOp>(*x);
  if (failed(d) ||
      failed(d = ctx.create<AddOp>(*d, scalar(ctx, elementType, 1.0))))
    return failure();
  FailureOr<Value> y = ctx.create<DivOp>(*x, *d);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertSign(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  Value zero = scalar(ctx, elementType, 0.0);
  FailureOr<Value> gt = ctx.create<CompareOp>("gt", *x, zero),
                   lt = ctx.create<CompareOp>("lt", *x, zero);
  if (failed(gt) || failed(lt))
    return failure();
  FailureOr<Value> y =
      ctx.create<SelectOp>(*lt, scalar(ctx, elementType, -1.0), zero);
  if (failed(y) ||
      failed(y = ctx.create<SelectOp>(*gt, scalar(ctx, elementType, 1.0), *y)))
    return failure();
  // The select broadcasts against x's shape through the comparisons.
  ctx.setOutput(0, *y);
  return success();
}

} // namespace

void addElementwiseOps(llvm::StringMap<OpConverter> &t) {
  t["Elu"] = convertElu;
  t["Celu"] = convertCelu;
  t["Xor"] = convertXor;
  t["CastLike"] = convertCastLike;
  t["BitShift"] = convertBitShift;
  t["Selu"] = convertSelu;
  t["PRelu"] = convertPRelu;
  t["ThresholdedRelu"] = convertThresholdedRelu;
  t["Softplus"] = convertSoftplus;
  t["Softsign"] = convertSoftsign;
  t["Sign"] = convertSign;
  t["Add"] = [](NodeContext &c) {
    return convertBinary<AddOp>(
        c, [](int64_t a, int64_t b) { return checkedArith('+', a, b); });
  };
  t["Sub"] = [](NodeContext &c) {
    return convertBinary<SubOp>(
        c, [](int64_t a, int64_t b) { return checkedArith('-', a, b); });
  };
  t["Mul"] = [](NodeContext &c) {
    return convertBinary<MulOp>(
        c, [](int64_t a, int64_t b) { return checkedArith('*', a, b); });
  };
  t["Div"] = [](NodeContext &c) {
    return convertBinary<DivOp>(
        c, [](int64_t a, int64_t b) { return checkedArith('/', a, b); });
  };
  t["Pow"] = convertPow;
  t["Max"] = [](NodeContext &c) { return convertVariadic<MaximumOp>(c); };
  t["Min"] = [](NodeContext &c) { return convertVariadic<MinimumOp>(c); };
  t["Sum"] = [](NodeContext &c) { return convertVariadic<AddOp>(c); };
  t["Mean"] = [](NodeContext &c) { return convertVariadic<AddOp>(c, true); };
  t["Neg"] = convertUnary<NegOp>;
  t["Abs"] = convertUnary<AbsOp>;
  t["Exp"] = convertUnary<ExpOp>;
  t["Log"] = convertUnary<LogOp>;
  t["Sqrt"] = convertUnary<SqrtOp>;
  t["Tanh"] = convertUnary<TanhOp>;
  t["Erf"] = convertUnary<ErfOp>;
  t["Sin"] = convertUnary<SinOp>;
  t["Cos"] = convertUnary<CosOp>;
  t["Atan"] = convertUnary<AtanOp>;
  t["Sigmoid"] = convertUnary<SigmoidOp>;
  t["Relu"] = convertUnary<ReluOp>;
  t["Reciprocal"] = convertReciprocal;
  t["LeakyRelu"] = convertLeakyRelu;
  t["HardSigmoid"] = convertHardSigmoid;
  t["HardSwish"] = convertHardSwish;
  t["Clip"] = convertClip;
  t["Equal"] = convertCompare<kEq>;
  t["Less"] = convertCompare<kLt>;
  t["LessOrEqual"] = convertCompare<kLe>;
  t["Greater"] = convertCompare<kGt>;
  t["GreaterOrEqual"] = convertCompare<kGe>;
  t["Not"] = convertNot;
  t["And"] = [](NodeContext &c) { return convertLogical(c, true); };
  t["Or"] = [](NodeContext &c) { return convertLogical(c, false); };
  t["Where"] = convertWhere;
  t["Cast"] = convertCast;
  t["Identity"] = convertIdentity;
  t["Dropout"] = convertDropout;
}

} // namespace mlir::rlx::onnx_import
