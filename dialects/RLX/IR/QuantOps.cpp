//===- QuantOps.cpp - rlx.fake_quant's verifier and rules -----------------===//
///
/// \file
/// fake_quant is elementwise and its derivative is the straight-through
/// estimator, so its rules pass cotangents and tangents through unchanged
/// (a stochastic rounding's key gets none). Its batching rule lines the
/// key's batch dims up with x's leading dims (BatchingRules.cpp).
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/IR/ShapeInference.h"

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
  // The random ops' rule for a key: batch dims, then two words.
  ShapeOrFailure batch =
      inferKeyBatchShape(key.getType(), [this] { return emitOpError(); });
  if (failed(batch))
    return failure();
  RankedTensorType xType = getType();
  int64_t batchRank = static_cast<int64_t>(batch->size());
  if (batchRank > xType.getRank())
    return emitOpError("expects the key's batch dims to be x's leading "
                       "dims, got a key of ")
           << batchRank << " batch dims for x of rank " << xType.getRank();
  for (int64_t d = 0; d < batchRank; ++d) {
    int64_t k = (*batch)[d], x = xType.getDimSize(d);
    if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(x) && k != x)
      return emitOpError("expects the key's batch dims to be x's leading "
                         "dims, got key dim ")
             << d << " of " << k << " for x's " << x;
  }
  return success();
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
