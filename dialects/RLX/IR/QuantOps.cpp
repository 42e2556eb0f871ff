//===- QuantOps.cpp - rlx.fake_quant's verifier and rules -----------------===//
///
/// \file
/// fake_quant is elementwise and its derivative is the straight-through
/// estimator, so its rules pass cotangents and tangents through unchanged
/// and its batching rule is the elementwise one.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"

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
  auto element = cast<FloatType>(getType().getElementType());
  if (!format->fitsIn(element))
    return emitOpError("expects a format whose values and ulps are normal ")
           << element << " numbers (f32 or f64, fewer mantissa bits, a "
                         "narrower exponent range), got e"
           << getExponentBits() << "m" << getMantissaBits() << " bias "
           << getExponentBias() << " in " << element;
  return success();
}

LogicalResult FakeQuantOp::buildVJP(OpBuilder &, ArrayRef<Value> adj,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  out.push_back(adj[0]);
  return success();
}

LogicalResult FakeQuantOp::buildJVP(OpBuilder &, ArrayRef<Value> tan,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  out.push_back(tan[0]);
  return success();
}
