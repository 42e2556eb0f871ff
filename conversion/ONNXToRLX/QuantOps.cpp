//===- QuantOps.cpp - ONNX's quantized ops ---------------------------------===//
///
/// \file
/// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
/// QLinearMatMul, ConvInteger and QLinearConv: what ONNX Runtime's
/// quantizer writes (QDQ models and
/// dynamically quantized ones) and what int8 models exported elsewhere use.
///
/// int8 tensors are rlx i8. uint8 tensors are held as i32 of their values
/// (rlx has no unsigned types; GraphImporter lets only these ops, casts
/// and ops that move elements read them).
///
/// Integer matmuls run on rlx's i8 x i8 -> i32 matmul (vpdpbusd on CPUs with
/// AVX512-VNNI) whatever the zero points: with A' = A - 128 for uint8 A (A
/// itself for int8, so that A' fits i8) and alpha = offset - a_zero_point,
/// likewise B' and beta,
///   (A - za) (B - zb) = A'B' + beta rowsum(A') + alpha colsum(B')
///                       + K alpha beta,
/// each correction term left out when its factor is known to be zero (an
/// int8 operand with no zero point, the usual symmetric weight). A term of
/// B alone is computed once per binding when B is a weight.
///
/// Quantizing rounds to nearest, ties to even (the ONNX spec), after
/// clamping to +-2^22 (ad::roundHalfToEven is exact there, and every
/// quantized type saturates far below).
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"
#include "dialects/RLX/IR/AutodiffBuilders.h"

namespace mlir::rlx::onnx_import {
namespace {

/// Unwraps a FailureOr<Value> into `var`, returning failure from the
/// enclosing function when there is none.
#define RLX_TRY(var, expr)                                                     \
  FailureOr<Value> var##OrFailure = (expr);                                    \
  if (failed(var##OrFailure))                                                  \
    return failure();                                                          \
  Value var = *var##OrFailure

/// A quantized element type: its range, and whether it is ONNX's uint8
/// (held as i32).
struct QuantType {
  bool isUint8;
  double lo, hi;
};

constexpr QuantType kUint8{true, 0, 255};
constexpr QuantType kInt8{false, -128, 127};

/// x as `elementType` (itself when it is): a cast never fails its shape
/// rule.
Value castTo(NodeContext &ctx, Value x, Type elementType) {
  return ad::castTo({ctx.builder(), ctx.loc}, x, elementType);
}

Type f32(NodeContext &ctx) { return ctx.builder().getF32Type(); }
Type i32(NodeContext &ctx) { return ctx.builder().getI32Type(); }

/// The quantized type of input `i` (data or zero point): uint8 (held as
/// i32) or int8; `fallback` when the input is absent.
FailureOr<QuantType> quantTypeOf(NodeContext &ctx, unsigned i,
                                 std::optional<QuantType> fallback,
                                 StringRef what) {
  if (!ctx.hasInput(i)) {
    if (fallback)
      return *fallback;
    return ctx.error() << what << " (input " << i << ") is missing";
  }
  if (ctx.inputIsUint8(i))
    return kUint8;
  FailureOr<RankedTensorType> type = ctx.inputType(i);
  if (failed(type))
    return failure();
  if (type->getElementType().isInteger(8))
    return kInt8;
  return ctx.error() << what << " (input " << i << ") has element type "
                     << type->getElementType()
                     << ": int8 and uint8 are supported";
}

/// A float input as f32, or an error naming `what`.
FailureOr<Value> f32Input(NodeContext &ctx, unsigned i, StringRef what) {
  FailureOr<Value> x = ctx.input(i);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(typeOf(*x).getElementType()))
    return ctx.error() << what << " (input " << i << ") must be floats, got "
                       << typeOf(*x).getElementType();
  return castTo(ctx, *x, f32(ctx));
}

/// A scale or zero point `v` for data of type `data`: a scalar (or one
/// element), or with `axis` a 1-D tensor of data's size along it, reshaped
/// to broadcast there.
FailureOr<Value> alongAxis(NodeContext &ctx, Value v, RankedTensorType data,
                           std::optional<int64_t> axis, StringRef what) {
  RankedTensorType type = typeOf(v);
  if (type.getRank() == 0 ||
      (type.getRank() == 1 && type.getDimSize(0) == 1))
    return reshape(ctx, v, {});
  if (type.getRank() != 1 || !axis)
    return ctx.error() << what << " must be a scalar"
                       << (axis ? " or 1-D" : "") << ", got " << type;
  int64_t size = data.getDimSize(*axis);
  if (type.isDynamicDim(0) ||
      (!ShapedType::isDynamic(size) && size != type.getDimSize(0)))
    return ctx.error() << what << " has " << type.getDimSize(0)
                       << " elements for the " << size
                       << " of the data's axis " << *axis;
  SmallVector<int64_t> shape(data.getRank() - *axis, 1);
  shape[0] = type.getDimSize(0);
  return reshape(ctx, v, shape);
}

/// The `axis` attribute normalized against `data`, for a per-axis `scale`
/// (1-D, more than one element). ONNX uses the axis only then: with a
/// scalar scale it is ignored, whatever it says (ONNX Runtime's quantizer
/// writes axis 1 on the per-tensor DequantizeLinear of a 1-D bias).
FailureOr<int64_t> axisAttribute(NodeContext &ctx, RankedTensorType data,
                                 Value scale) {
  FailureOr<int64_t> axis = ctx.getInt("axis", 1);
  if (failed(axis))
    return failure();
  RankedTensorType scaleType = typeOf(scale);
  bool perTensor = scaleType.getRank() == 0 ||
                   (scaleType.getRank() == 1 && scaleType.getDimSize(0) == 1);
  if (data.getRank() == 0 || perTensor)
    return 0;
  return normalizeAxis(ctx, *axis, data.getRank());
}

/// `v` (f32) rounded to nearest, ties to even, after clamping to +-2^22.
FailureOr<Value> roundBounded(NodeContext &ctx, Value v) {
  Type f = f32(ctx);
  RLX_TRY(low, ctx.create<MaximumOp>(v, scalar(ctx, f, -4194304.0)));
  RLX_TRY(clamped, ctx.create<MinimumOp>(low, scalar(ctx, f, 4194304.0)));
  return ad::roundHalfToEven({ctx.builder(), ctx.loc}, clamped);
}

/// round(scaled) + zeroPoint (f32, may be null), saturated to `q`'s range,
/// in q's held type (i8, or i32 for uint8).
FailureOr<Value> saturateTo(NodeContext &ctx, Value scaled, Value zeroPoint,
                            QuantType q) {
  Type f = f32(ctx);
  RLX_TRY(rounded, roundBounded(ctx, scaled));
  Value shifted = rounded;
  if (zeroPoint) {
    RLX_TRY(sum, ctx.create<AddOp>(rounded, zeroPoint));
    shifted = sum;
  }
  RLX_TRY(low, ctx.create<MaximumOp>(shifted, scalar(ctx, f, q.lo)));
  RLX_TRY(clamped, ctx.create<MinimumOp>(low, scalar(ctx, f, q.hi)));
  return castTo(ctx, clamped,
                q.isUint8 ? i32(ctx) : ctx.builder().getIntegerType(8));
}

/// Input `i`, a zero point, as f32 broadcast along `axis` of `data`; null
/// when absent.
FailureOr<Value> zeroPointF32(NodeContext &ctx, unsigned i,
                              RankedTensorType data,
                              std::optional<int64_t> axis) {
  if (!ctx.hasInput(i))
    return Value();
  RLX_TRY(zp, ctx.input(i));
  return alongAxis(ctx, castTo(ctx, zp, f32(ctx)), data, axis,
                   "the zero point");
}

LogicalResult convertQuantizeLinear(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"axis"})))
    return failure();
  RLX_TRY(x, f32Input(ctx, 0, "x"));
  RLX_TRY(scale, f32Input(ctx, 1, "y_scale"));
  FailureOr<QuantType> q = quantTypeOf(ctx, 2, kUint8, "y_zero_point");
  FailureOr<int64_t> axis = axisAttribute(ctx, typeOf(x), scale);
  if (failed(q) || failed(axis))
    return failure();
  RLX_TRY(s, alongAxis(ctx, scale, typeOf(x), *axis, "y_scale"));
  RLX_TRY(zp, zeroPointF32(ctx, 2, typeOf(x), *axis));
  RLX_TRY(scaled, ctx.create<DivOp>(x, s));
  RLX_TRY(y, saturateTo(ctx, scaled, zp, *q));
  ctx.setOutput(0, y);
  if (q->isUint8)
    ctx.markOutputUint8(0);
  return success();
}

LogicalResult convertDequantizeLinear(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"axis"})))
    return failure();
  RLX_TRY(x, ctx.input(0));
  FailureOr<RankedTensorType> scaleType = ctx.inputType(1);
  if (failed(scaleType))
    return failure();
  bool int32 = !ctx.inputIsUint8(0) && typeOf(x).getElementType().isInteger(32);
  if (!int32 && failed(quantTypeOf(ctx, 0, std::nullopt, "x")))
    return failure();
  if (int32 && ctx.hasInput(2)) {
    std::optional<DenseElementsAttr> zp = ctx.constantInput(2);
    if (!zp || !llvm::all_of(toInts(*zp), [](int64_t v) { return v == 0; }))
      return ctx.error() << "an int32 x takes no zero point other than 0";
  }
  RLX_TRY(scale, f32Input(ctx, 1, "x_scale"));
  FailureOr<int64_t> axis = axisAttribute(ctx, typeOf(x), scale);
  if (failed(axis))
    return failure();
  RLX_TRY(s, alongAxis(ctx, scale, typeOf(x), *axis, "x_scale"));
  Value values = castTo(ctx, x, f32(ctx));
  if (!int32 && ctx.hasInput(2)) {
    RLX_TRY(zp, zeroPointF32(ctx, 2, typeOf(x), *axis));
    RLX_TRY(centered, ctx.create<SubOp>(values, zp));
    values = centered;
  }
  RLX_TRY(y, ctx.create<MulOp>(values, s));
  ctx.setOutput(0, castTo(ctx, y, scaleType->getElementType()));
  return success();
}

/// The largest element of `x` (all axes), at least 0.
FailureOr<Value> maxWithZero(NodeContext &ctx, Value x) {
  OpBuilder &b = ctx.builder();
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, typeOf(x).getRank()));
  RLX_TRY(most, ctx.create<MaxOp>(x, b.getDenseI64ArrayAttr(all),
                                  b.getBoolAttr(false)));
  return ctx.create<MaximumOp>(most, scalar(ctx, f32(ctx), 0.0));
}

/// ONNX's DynamicQuantizeLinear: uint8 over [min(x, 0), max(x, 0)]. An
/// all-zero x has scale 0; it divides by 1 instead, so y and the zero
/// point are 0 rather than NaN casts.
LogicalResult convertDynamicQuantizeLinear(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({})))
    return failure();
  Type f = f32(ctx);
  RLX_TRY(x, f32Input(ctx, 0, "x"));
  RLX_TRY(high, maxWithZero(ctx, x));
  RLX_TRY(negated, ctx.create<NegOp>(x));
  RLX_TRY(negLow, maxWithZero(ctx, negated)); // -min(x, 0)
  RLX_TRY(range, ctx.create<AddOp>(high, negLow));
  RLX_TRY(scale, ctx.create<DivOp>(range, scalar(ctx, f, 255.0)));
  RLX_TRY(isZero, ctx.create<CompareOp>("eq", scale, scalar(ctx, f, 0.0)));
  RLX_TRY(divisor, ctx.create<SelectOp>(isZero, scalar(ctx, f, 1.0), scale));
  // Zero point: round(0 - min / scale) saturated to [0, 255].
  RLX_TRY(zpScaled, ctx.create<DivOp>(negLow, divisor));
  RLX_TRY(zpRounded, roundBounded(ctx, zpScaled));
  RLX_TRY(zpLow, ctx.create<MaximumOp>(zpRounded, scalar(ctx, f, 0.0)));
  RLX_TRY(zp, ctx.create<MinimumOp>(zpLow, scalar(ctx, f, 255.0)));
  RLX_TRY(scaled, ctx.create<DivOp>(x, divisor));
  RLX_TRY(y, saturateTo(ctx, scaled, zp, kUint8));
  ctx.setOutput(0, y);
  ctx.setOutput(1, scale);
  ctx.setOutput(2, castTo(ctx, zp, i32(ctx)));
  ctx.markOutputUint8(0);
  ctx.markOutputUint8(2);
  return success();
}

/// One operand of an integer matmul or conv: A' (i8) and the constant `offset`
/// with A = A' + offset (128 for uint8, 0 for int8).
struct IntegerOperand {
  Value shifted;
  int64_t offset;
};

FailureOr<IntegerOperand> integerOperand(NodeContext &ctx, unsigned i,
                                         StringRef what, bool ofMatmul) {
  FailureOr<QuantType> q = quantTypeOf(ctx, i, std::nullopt, what);
  if (failed(q))
    return failure();
  RLX_TRY(v, ctx.input(i));
  if (ofMatmul && typeOf(v).getRank() < 2)
    return ctx.error() << what << " has rank " << typeOf(v).getRank()
                       << ": integer matmuls of vectors are not supported";
  if (!q->isUint8)
    return IntegerOperand{v, 0};
  RLX_TRY(moved, ctx.create<SubOp>(v, scalar(ctx, i32(ctx), 128)));
  return IntegerOperand{castTo(ctx, moved, ctx.builder().getIntegerType(8)),
                        128};
}

/// offset - zero point (input `zpInput`) as i32, broadcast per row (`rows`:
/// a [M] zero point becomes [M, 1]) or per column; null when it is known to
/// be zero.
FailureOr<Value> zeroPointShift(NodeContext &ctx, unsigned zpInput,
                                int64_t offset, bool rows, StringRef what) {
  if (!ctx.hasInput(zpInput))
    return offset ? scalar(ctx, i32(ctx), offset) : Value();
  if (std::optional<DenseElementsAttr> known = ctx.constantInput(zpInput);
      known && isFoldableInts(known) &&
      llvm::all_of(toInts(*known), [&](int64_t v) { return v == offset; }))
    return Value();
  RLX_TRY(zp, ctx.input(zpInput));
  RankedTensorType type = typeOf(zp);
  if (type.getRank() > 1)
    return ctx.error() << what << " must be a scalar or 1-D, got " << type;
  Value wide = castTo(ctx, zp, i32(ctx));
  if (rows && type.getRank() == 1)
    wide = reshape(ctx, wide, {type.getDimSize(0), 1});
  return ctx.create<SubOp>(scalar(ctx, i32(ctx), offset), wide);
}

/// The sum of `v` (i8) over `axis` as i32, keeping the axis.
FailureOr<Value> sumKeep(NodeContext &ctx, Value v, int64_t axis) {
  OpBuilder &b = ctx.builder();
  return ctx.create<SumOp>(castTo(ctx, v, i32(ctx)),
                           b.getDenseI64ArrayAttr({axis}), b.getBoolAttr(true));
}

/// (A - a_zero_point) @ (B - b_zero_point) in i32: A is input 0, B input
/// `bInput`, the zero points inputs `zpA` and `zpB`.
FailureOr<Value> integerMatmul(NodeContext &ctx, unsigned bInput, unsigned zpA,
                               unsigned zpB) {
  FailureOr<IntegerOperand> a = integerOperand(ctx, 0, "A", true);
  if (failed(a))
    return failure();
  FailureOr<IntegerOperand> b = integerOperand(ctx, bInput, "B", true);
  if (failed(b))
    return failure();
  RLX_TRY(alpha, zeroPointShift(ctx, zpA, a->offset, true, "a_zero_point"));
  RLX_TRY(beta, zeroPointShift(ctx, zpB, b->offset, false, "b_zero_point"));
  FailureOr<Value> product = ctx.create<MatmulOp>(a->shifted, b->shifted);
  if (failed(product))
    return failure();
  // The i8 product's inferred type, widened: products summed in i32.
  product->setType(typeOf(*product).clone(i32(ctx)));
  Value result = *product;
  int64_t rankA = typeOf(a->shifted).getRank();
  int64_t rankB = typeOf(b->shifted).getRank();
  if (beta) {
    RLX_TRY(rowSums, sumKeep(ctx, a->shifted, rankA - 1));
    RLX_TRY(term, ctx.create<MulOp>(beta, rowSums));
    RLX_TRY(sum, ctx.create<AddOp>(result, term));
    result = sum;
  }
  if (alpha) {
    RLX_TRY(colSums, sumKeep(ctx, b->shifted, rankB - 2));
    RLX_TRY(term, ctx.create<MulOp>(alpha, colSums));
    RLX_TRY(sum, ctx.create<AddOp>(result, term));
    result = sum;
  }
  if (alpha && beta) {
    int64_t k = typeOf(a->shifted).getDimSize(rankA - 1);
    if (ShapedType::isDynamic(k))
      return ctx.error() << "zero points on both operands need a static "
                            "contraction length";
    RLX_TRY(ab, ctx.create<MulOp>(alpha, beta));
    RLX_TRY(term, ctx.create<MulOp>(ab, scalar(ctx, i32(ctx), k)));
    RLX_TRY(sum, ctx.create<AddOp>(result, term));
    result = sum;
  }
  return result;
}

LogicalResult convertMatMulInteger(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({})))
    return failure();
  RLX_TRY(y, integerMatmul(ctx, 1, 2, 3));
  ctx.setOutput(0, y);
  return success();
}

/// A scale of QLinearMatMul, f32, per row (`rows`) or per column.
FailureOr<Value> matmulScale(NodeContext &ctx, unsigned i, bool rows,
                             StringRef what) {
  RLX_TRY(s, f32Input(ctx, i, what));
  RankedTensorType type = typeOf(s);
  if (type.getRank() > 1)
    return ctx.error() << what << " must be a scalar or 1-D, got " << type;
  if (rows && type.getRank() == 1)
    return reshape(ctx, s, {type.getDimSize(0), 1});
  return s;
}

/// The outputs of QLinearMatMul and QLinearConv: their i32 `acc` times
/// `scales` (the inputs' scales multiplied, f32) / y_scale (input 6), rounded
/// and saturated to y_zero_point's type (input 7) with that zero point.
LogicalResult setRequantized(NodeContext &ctx, Value acc, Value scales) {
  FailureOr<QuantType> q = quantTypeOf(ctx, 7, std::nullopt, "y_zero_point");
  if (failed(q))
    return failure();
  RLX_TRY(sy, matmulScale(ctx, 6, false, "y_scale"));
  RLX_TRY(zp, ctx.input(7));
  if (typeOf(sy).getRank() != 0 || typeOf(zp).getNumElements() != 1)
    return ctx.error() << "y_scale and y_zero_point must be scalars";
  RLX_TRY(multiplier, ctx.create<DivOp>(scales, sy));
  RLX_TRY(real, ctx.create<MulOp>(castTo(ctx, acc, f32(ctx)), multiplier));
  RLX_TRY(y, saturateTo(ctx, real,
                        reshape(ctx, castTo(ctx, zp, f32(ctx)), {}), *q));
  ctx.setOutput(0, y);
  if (q->isUint8)
    ctx.markOutputUint8(0);
  return success();
}

/// The zero points a QLinear op needs (inputs 2, 5 and 7).
LogicalResult checkZeroPointsGiven(NodeContext &ctx) {
  for (unsigned i : {2u, 5u, 7u})
    if (!ctx.hasInput(i))
      return ctx.error() << "zero point input " << i << " is missing";
  return success();
}

/// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): the
/// integer product rescaled by a_scale * b_scale / y_scale and quantized.
LogicalResult convertQLinearMatMul(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({})) || failed(checkZeroPointsGiven(ctx)))
    return failure();
  RLX_TRY(acc, integerMatmul(ctx, 3, 2, 5));
  RLX_TRY(sa, matmulScale(ctx, 1, true, "a_scale"));
  RLX_TRY(sb, matmulScale(ctx, 4, false, "b_scale"));
  RLX_TRY(sab, ctx.create<MulOp>(sa, sb));
  return setRequantized(ctx, acc, sab);
}

/// conv(x - x_zero_point, w - w_zero_point) in i32 (inputs `xInput`,
/// `wInput` and the zero points). With x = x' + offset (x' i8) and alpha =
/// offset - x_zero_point, x - x_zero_point is x' + alpha inside the image
/// and 0 in the padding, so the conv is conv(x') + alpha conv(1), the
/// second over an image of ones (zero padded): a weight-only term when the
/// image's size is static. The weight's zero point must cancel its offset
/// (int8 weights without one, ONNX Runtime's symmetric weights).
FailureOr<Value> integerConv(NodeContext &ctx, unsigned xInput,
                             unsigned wInput, unsigned zxInput,
                             unsigned zwInput) {
  FailureOr<IntegerOperand> x = integerOperand(ctx, xInput, "x", false);
  if (failed(x))
    return failure();
  FailureOr<IntegerOperand> w = integerOperand(ctx, wInput, "w", false);
  if (failed(w))
    return failure();
  RLX_TRY(beta, zeroPointShift(ctx, zwInput, w->offset, false,
                               "w_zero_point"));
  if (beta)
    return ctx.error() << "w_zero_point must be "
                       << (w->offset ? "128 for a uint8" : "0 for an int8")
                       << " weight (symmetric weights): others are not "
                          "supported";
  RLX_TRY(alpha, zeroPointShift(ctx, zxInput, x->offset, false,
                                "x_zero_point"));
  if (alpha && typeOf(alpha).getNumElements() != 1)
    return ctx.error() << "x_zero_point must be a scalar";
  RLX_TRY(y, convolve(ctx, x->shifted, w->shifted, /*int8=*/true));
  if (!alpha)
    return y;
  // An image of ones: one example when its size is static, else x's shape.
  RankedTensorType xType = typeOf(x->shifted);
  Value ones;
  if (!llvm::any_of(xType.getShape().drop_front(), ShapedType::isDynamic)) {
    SmallVector<int64_t> shape = llvm::to_vector(xType.getShape());
    shape[0] = 1;
    auto type = RankedTensorType::get(shape, xType.getElementType());
    ones = ConstantOp::create(
        ctx.builder(), ctx.loc, type,
        DenseElementsAttr::get(type, ctx.builder().getI8IntegerAttr(1)));
  } else {
    RLX_TRY(zero, ctx.create<MulOp>(x->shifted,
                                    scalar(ctx, xType.getElementType(), 0)));
    RLX_TRY(one, ctx.create<AddOp>(zero,
                                   scalar(ctx, xType.getElementType(), 1)));
    ones = one;
  }
  RLX_TRY(counts, convolve(ctx, ones, w->shifted, /*int8=*/true));
  RLX_TRY(term, ctx.create<MulOp>(reshape(ctx, alpha, {}), counts));
  return ctx.create<AddOp>(y, term);
}

LogicalResult convertConvInteger(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes(kConvAttributes)))
    return failure();
  RLX_TRY(y, integerConv(ctx, 0, 1, 2, 3));
  ctx.setOutput(0, y);
  return success();
}

/// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B): the
/// integer conv plus the i32 bias, rescaled by x_scale * w_scale (per
/// output channel) / y_scale and quantized.
LogicalResult convertQLinearConv(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes(kConvAttributes)) ||
      failed(checkZeroPointsGiven(ctx)))
    return failure();
  RLX_TRY(acc, integerConv(ctx, 0, 3, 2, 5));
  int64_t rank = typeOf(acc).getRank();
  auto perChannel = [&](Value v) {
    if (typeOf(v).getRank() != 1 || typeOf(v).getDimSize(0) == 1)
      return reshape(ctx, v, {});
    SmallVector<int64_t> shape(rank - 1, 1);
    shape[0] = typeOf(v).getDimSize(0);
    return reshape(ctx, v, shape);
  };
  if (ctx.hasInput(8)) {
    RLX_TRY(bias, ctx.input(8));
    if (!typeOf(bias).getElementType().isInteger(32) || typeOf(bias).getRank() != 1)
      return ctx.error() << "B must be a 1-D int32 tensor";
    RLX_TRY(biased, ctx.create<AddOp>(acc, perChannel(bias)));
    acc = biased;
  }
  RLX_TRY(sx, matmulScale(ctx, 1, false, "x_scale"));
  RLX_TRY(sw, matmulScale(ctx, 4, false, "w_scale"));
  if (typeOf(sx).getRank() != 0)
    return ctx.error() << "x_scale must be a scalar";
  RLX_TRY(sxw, ctx.create<MulOp>(sx, perChannel(sw)));
  return setRequantized(ctx, acc, sxw);
}

#undef RLX_TRY

} // namespace

void addQuantOps(llvm::StringMap<OpConverter> &t) {
  t["QuantizeLinear"] = convertQuantizeLinear;
  t["DequantizeLinear"] = convertDequantizeLinear;
  t["DynamicQuantizeLinear"] = convertDynamicQuantizeLinear;
  t["MatMulInteger"] = convertMatMulInteger;
  t["QLinearMatMul"] = convertQLinearMatMul;
  t["ConvInteger"] = convertConvInteger;
  t["QLinearConv"] = convertQLinearConv;
}

} // namespace mlir::rlx::onnx_import
