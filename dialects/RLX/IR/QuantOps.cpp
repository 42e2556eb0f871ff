//===- QuantOps.cpp - rlx.fake_quant's verifier and rules -----------------===//
///
/// \file
/// fake_quant is elementwise and its derivative is the straight-through
/// estimator, so its rules pass cotangents and tangents through unchanged
/// (a stochastic rounding's key gets none). Its batching rule lines the
/// key's batch dims up with x's leading dims (BatchingRules.cpp).
///
/// block_dequantize is linear in x with the scales held constant: x's
/// cotangent and tangent are scaled block by block like x itself.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/IR/ShapeInference.h"
#include "dialects/RLX/IR/ShapeUtils.h"

using namespace mlir;
using namespace mlir::rlx;

std::optional<FloatFormat> FakeQuantOp::getFormat() {
  auto specials =
      llvm::StringSwitch<std::optional<FloatFormat::Specials>>(getSpecials())
          .Case("ieee", FloatFormat::Specials::IEEE)
          .Case("fn", FloatFormat::Specials::NaNOnly)
          .Case("fnuz", FloatFormat::Specials::NaNAsNegativeZero)
          .Case("finite", FloatFormat::Specials::FiniteOnly)
          .Default(std::nullopt);
  if (!specials || getExponentBits() < 1 || getExponentBits() > 11 ||
      getMantissaBits() < 1 || getMantissaBits() > 52)
    return std::nullopt;
  return FloatFormat{static_cast<unsigned>(getExponentBits()),
                     static_cast<unsigned>(getMantissaBits()),
                     static_cast<int>(getExponentBias()), *specials};
}

LogicalResult FakeQuantOp::verify() {
  std::optional<FloatFormat> format = getFormat();
  if (!format) {
    if (getSpecials() != "ieee" && getSpecials() != "fn" &&
        getSpecials() != "fnuz" && getSpecials() != "finite")
      return emitOpError("expects specials among ieee, fn, fnuz, finite, got '")
             << getSpecials() << "'";
    return emitOpError("expects 1 to 11 exponent bits and 1 to 52 mantissa "
                       "bits, got ")
           << getExponentBits() << " and " << getMantissaBits();
  }
  // A format whose values are x's but whose smallest ulps are not normal
  // numbers of its type (bf16 in f32) scales in two steps.
  auto element = cast<FloatType>(getType().getElementType());
  if (!format->fitsIn(element) && !format->valuesFitIn(element))
    return emitOpError("expects a format whose values are ")
           << element
           << " numbers (f32 or f64, at most as many mantissa "
              "bits, a range within its own), got e"
           << getExponentBits() << "m" << getMantissaBits() << " bias "
           << getExponentBias() << " in " << element;
  if (Value key = getKey())
    return verifyKey(key);
  return success();
}

LogicalResult FakeQuantOp::verifyKey(Value key) {
  return verifyRoundingKey(key.getType(), getType(),
                           [this] { return emitOpError(); });
}

LogicalResult FakeQuantOp::buildVJP(OpBuilder &, ArrayRef<Value> adj,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  out.push_back(adj[0]);
  if (getKey())
    out.push_back(Value());
  return success();
}

LogicalResult FakeQuantOp::buildJVP(OpBuilder &, ArrayRef<Value> tan,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  out.push_back(tan[0]);
  return success();
}

//===----------------------------------------------------------------------===//
// block_dequantize
//===----------------------------------------------------------------------===//

namespace {

/// Whether `type` is a float type block_dequantize computes on: f16, bf16,
/// f32, f64, or one of the narrow formats decoded exactly.
bool isDequantizableFloat(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64() ||
         narrowFloatFormat(type).has_value();
}

} // namespace

LogicalResult BlockDequantizeOp::verify() {
  RankedTensorType xType = getX().getType(), scalesType = getScales().getType();
  Type xElement = xType.getElementType();
  Type scaleElement = scalesType.getElementType();
  bool integerCodes = xElement.isSignlessInteger() &&
                      xElement.getIntOrFloatBitWidth() > 1 &&
                      xElement.getIntOrFloatBitWidth() <= 32;
  if (!integerCodes && !isDequantizableFloat(xElement))
    return emitOpError("expects x of a float type or a signless integer of 2 "
                       "to 32 bits, got ")
           << xElement;
  if (!isa<Float8E8M0FNUType>(scaleElement) && !scaleElement.isF16() &&
      !scaleElement.isBF16() && !scaleElement.isF32() && !scaleElement.isF64())
    return emitOpError("expects scales of f8E8M0FNU, f16, bf16, f32 or f64, "
                       "got ")
           << scaleElement;
  int64_t rank = xType.getRank();
  if (scalesType.getRank() != rank)
    return emitOpError("expects scales of x's rank ")
           << rank << ", got rank " << scalesType.getRank();
  if (getAxis() < 0 || getAxis() >= rank)
    return emitOpError("expects an axis in [0, ")
           << rank << "), got " << getAxis();
  if (getBlockSize() < 1)
    return emitOpError("expects a positive block_size, got ") << getBlockSize();
  if (failed(verifyCompatibleShape(getType().getShape(), xType.getShape())))
    return emitOpError("expects the result shape to equal x's ")
           << formatShape(xType.getShape()) << ", got "
           << formatShape(getType().getShape());
  for (int64_t d = 0; d < rank; ++d) {
    int64_t x = xType.getDimSize(d), s = scalesType.getDimSize(d);
    if (ShapedType::isDynamic(x) || ShapedType::isDynamic(s))
      continue;
    int64_t expected = d == getAxis() ? llvm::divideCeil(x, getBlockSize()) : x;
    if (s != expected)
      return emitOpError("expects scales dim ")
             << d << " of " << expected
             << (d == getAxis() ? " (one scale per block of x's dim)"
                                : " (x's dim)")
             << ", got " << s;
  }
  return success();
}

LogicalResult BlockDequantizeOp::buildVJP(OpBuilder &builder,
                                          ArrayRef<Value> adj,
                                          SmallVectorImpl<Value> &out,
                                          SymbolTableCollection &) {
  out.push_back(scaledLikeX(builder, adj[0]));
  out.push_back(Value());
  return success();
}

LogicalResult BlockDequantizeOp::buildJVP(OpBuilder &builder,
                                          ArrayRef<Value> tan,
                                          SmallVectorImpl<Value> &out,
                                          SymbolTableCollection &) {
  // The scales are constants to autodiff; codes have no tangent.
  if (!tan[0]) {
    out.push_back(Value());
    return success();
  }
  out.push_back(scaledLikeX(builder, tan[0], getType()));
  return success();
}

Value BlockDequantizeOp::scaledLikeX(OpBuilder &builder, Value v,
                                     RankedTensorType resultType) {
  if (!v)
    return Value();
  RankedTensorType xType = getX().getType();
  if (!resultType) {
    // A cotangent for x exists only where x is a compute float.
    Type xElement = xType.getElementType();
    if (!isa<FloatType>(xElement) || narrowFloatFormat(xElement))
      return Value();
    resultType = xType;
  }
  return BlockDequantizeOp::create(builder, getLoc(), resultType, v,
                                   getScales(), getAxis(), getBlockSize());
}
