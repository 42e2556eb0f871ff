//===- ElementwiseToLinalg.cpp - rlx elementwise ops to linalg ------------===//
///
/// \file
/// Every elementwise rlx op becomes one broadcasting linalg.generic whose
/// body is built from arith and math. Float and integer forms differ only in
/// the scalar ops chosen here.
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToLinalg/LinalgBuilders.h"
#include "conversion/RLXToLinalg/NarrowFloats.h"
#include "conversion/RLXToLinalg/RLXToLinalg.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

/// Lowers an elementwise op whose scalar form `ScalarFn(b, loc, args, op)`
/// is given; the result type is the op's.
template <typename OpTy, typename ScalarFn>
struct ElementwisePattern : OpRewritePattern<OpTy> {
  ElementwisePattern(MLIRContext *ctx, ScalarFn fn)
      : OpRewritePattern<OpTy>(ctx), fn(fn) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    // Stochastic rounding draws random numbers: RandomToLinalg.cpp.
    if constexpr (std::is_same_v<OpTy, FakeQuantOp> ||
                  std::is_same_v<OpTy, CastOp>)
      if (op.getKey())
        return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return fn(b, loc, args, op);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
  ScalarFn fn;
};

template <typename OpTy, typename ScalarFn>
void add(RewritePatternSet &patterns, ScalarFn fn) {
  patterns.add(std::make_unique<ElementwisePattern<OpTy, ScalarFn>>(
      patterns.getContext(), fn));
}

/// Picks the float or the integer arith op for a binary operation.
template <typename FloatOp, typename IntOp>
Value binary(OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args[0]))
    return FloatOp::create(b, loc, args[0], args[1]);
  return IntOp::create(b, loc, args[0], args[1]);
}

/// Signed integer division that cannot trap, with XLA's results where C's
/// are undefined: x / 0 = -1 and INT_MIN / -1 = INT_MIN (a hardware divide
/// would raise SIGFPE on either, killing the caller's process).
Value safeIntDiv(OpBuilder &b, Location loc, Value x, Value y) {
  auto type = cast<IntegerType>(x.getType());
  unsigned width = type.getWidth();
  auto constant = [&](const APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, v));
  };
  Value zero = constant(APInt::getZero(width));
  Value one = constant(APInt(width, 1));
  Value minusOne = constant(APInt::getAllOnes(width));
  Value min = constant(APInt::getSignedMinValue(width));
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value overflow = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, min),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, minusOne));
  Value unsafe = arith::OrIOp::create(b, loc, byZero, overflow);
  Value divisor = arith::SelectOp::create(b, loc, unsafe, one, y);
  Value quotient = arith::DivSIOp::create(b, loc, x, divisor);
  return arith::SelectOp::create(b, loc, byZero, minusOne, quotient);
}

/// Signed integer remainder that cannot trap, with XLA's results where C's
/// are undefined: x rem 0 = x and INT_MIN rem -1 = 0.
Value safeIntRem(OpBuilder &b, Location loc, Value x, Value y) {
  auto type = cast<IntegerType>(x.getType());
  unsigned width = type.getWidth();
  auto constant = [&](const APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, v));
  };
  Value zero = constant(APInt::getZero(width));
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  // Any x rem -1 is 0; a divisor of 1 gives it without INT_MIN's overflow.
  Value minusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                         constant(APInt::getAllOnes(width)));
  Value unsafe = arith::OrIOp::create(b, loc, byZero, minusOne);
  Value divisor =
      arith::SelectOp::create(b, loc, unsafe, constant(APInt(width, 1)), y);
  Value r = arith::RemSIOp::create(b, loc, x, divisor);
  return arith::SelectOp::create(b, loc, byZero, x, r);
}

Value constantLike(OpBuilder &b, Location loc, Value like, double value) {
  return scalarConstant(b, loc, like.getType(), value);
}

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = constantLike(b, loc, x, 1.0);
  Value negX = arith::NegFOp::create(b, loc, x);
  Value e = math::ExpOp::create(b, loc, negX);
  Value denom = arith::AddFOp::create(b, loc, one, e);
  return arith::DivFOp::create(b, loc, one, denom);
}

Value gelu(OpBuilder &b, Location loc, Value x, StringRef approximate) {
  Value half = constantLike(b, loc, x, 0.5);
  Value one = constantLike(b, loc, x, 1.0);
  Value inner;
  if (approximate == "erf") {
    Value invSqrt2 = constantLike(b, loc, x, 0.70710678118654752440);
    Value scaled = arith::MulFOp::create(b, loc, x, invSqrt2);
    inner = math::ErfOp::create(b, loc, scaled);
  } else {
    Value c = constantLike(b, loc, x, 0.79788456080286535588); // sqrt(2/pi)
    Value k = constantLike(b, loc, x, 0.044715);
    Value x2 = arith::MulFOp::create(b, loc, x, x);
    Value x3 = arith::MulFOp::create(b, loc, x2, x);
    Value poly =
        arith::AddFOp::create(b, loc, x, arith::MulFOp::create(b, loc, k, x3));
    inner = math::TanhOp::create(b, loc, arith::MulFOp::create(b, loc, c, poly));
  }
  Value onePlus = arith::AddFOp::create(b, loc, one, inner);
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                               onePlus);
}

Value compare(OpBuilder &b, Location loc, Value lhs, Value rhs,
              StringRef direction) {
  if (isFloat(lhs)) {
    auto pred = llvm::StringSwitch<arith::CmpFPredicate>(direction)
                    .Case("eq", arith::CmpFPredicate::OEQ)
                    .Case("ne", arith::CmpFPredicate::UNE)
                    .Case("lt", arith::CmpFPredicate::OLT)
                    .Case("le", arith::CmpFPredicate::OLE)
                    .Case("gt", arith::CmpFPredicate::OGT)
                    .Default(arith::CmpFPredicate::OGE);
    return arith::CmpFOp::create(b, loc, pred, lhs, rhs);
  }
  // i1 compares as unsigned (false < true); wider integers are signed.
  bool isBool = lhs.getType().isInteger(1);
  auto pred = llvm::StringSwitch<arith::CmpIPredicate>(direction)
                  .Case("eq", arith::CmpIPredicate::eq)
                  .Case("ne", arith::CmpIPredicate::ne)
                  .Case("lt", isBool ? arith::CmpIPredicate::ult
                                     : arith::CmpIPredicate::slt)
                  .Case("le", isBool ? arith::CmpIPredicate::ule
                                     : arith::CmpIPredicate::sle)
                  .Case("gt", isBool ? arith::CmpIPredicate::ugt
                                     : arith::CmpIPredicate::sgt)
                  .Default(isBool ? arith::CmpIPredicate::uge
                                  : arith::CmpIPredicate::sge);
  return arith::CmpIOp::create(b, loc, pred, lhs, rhs);
}

} // namespace

Value mlir::rlx::convertScalar(OpBuilder &b, Location loc, Value x, Type to,
                               bool saturate) {
  Type from = x.getType();
  if (from == to)
    return x;
  // f8/f6/f4 have no arithmetic on any backend: rounding and decoding are
  // integer code (NarrowFloats.cpp).
  if (auto toFloat = dyn_cast<FloatType>(to);
      toFloat && narrowFloatFormat(toFloat))
    return convertToNarrowFloat(b, loc, x, toFloat, saturate);
  if (narrowFloatFormat(from))
    return convertScalar(b, loc, narrowFloatToF32(b, loc, x), to, saturate);
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, x);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, to, x);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromFloat) {
    if (to.isInteger(1))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   constantLike(b, loc, x, 0.0));
    return arith::FPToSIOp::create(b, loc, to, x);
  }
  if (toFloat) {
    if (from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (to.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 constantLike(b, loc, x, 0));
  if (fromWidth < toWidth)
    return from.isInteger(1) ? Value(arith::ExtUIOp::create(b, loc, to, x))
                             : Value(arith::ExtSIOp::create(b, loc, to, x));
  return arith::TruncIOp::create(b, loc, to, x);
}

void mlir::rlx::populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  using Args = ValueRange;
  add<AddOp>(patterns, [](OpBuilder &b, Location l, Args a, AddOp) {
    return binary<arith::AddFOp, arith::AddIOp>(b, l, a);
  });
  add<SubOp>(patterns, [](OpBuilder &b, Location l, Args a, SubOp) {
    return binary<arith::SubFOp, arith::SubIOp>(b, l, a);
  });
  add<MulOp>(patterns, [](OpBuilder &b, Location l, Args a, MulOp) {
    return binary<arith::MulFOp, arith::MulIOp>(b, l, a);
  });
  add<DivOp>(patterns, [](OpBuilder &b, Location l, Args a, DivOp) {
    if (isFloat(a[0]))
      return Value(arith::DivFOp::create(b, l, a[0], a[1]));
    return safeIntDiv(b, l, a[0], a[1]);
  });
  add<RemOp>(patterns, [](OpBuilder &b, Location l, Args a, RemOp) -> Value {
    if (isFloat(a[0]))
      return arith::RemFOp::create(b, l, a[0], a[1]);
    return safeIntRem(b, l, a[0], a[1]);
  });
  add<PowOp>(patterns, [](OpBuilder &b, Location l, Args a, PowOp) -> Value {
    return math::PowFOp::create(b, l, a[0], a[1]);
  });
  add<MaximumOp>(patterns, [](OpBuilder &b, Location l, Args a, MaximumOp) {
    return binary<arith::MaximumFOp, arith::MaxSIOp>(b, l, a);
  });
  add<MinimumOp>(patterns, [](OpBuilder &b, Location l, Args a, MinimumOp) {
    return binary<arith::MinimumFOp, arith::MinSIOp>(b, l, a);
  });
  add<NegOp>(patterns, [](OpBuilder &b, Location l, Args a, NegOp) -> Value {
    if (isFloat(a[0]))
      return arith::NegFOp::create(b, l, a[0]);
    return arith::SubIOp::create(b, l, constantLike(b, l, a[0], 0), a[0]);
  });
  add<AbsOp>(patterns, [](OpBuilder &b, Location l, Args a, AbsOp) -> Value {
    if (isFloat(a[0]))
      return math::AbsFOp::create(b, l, a[0]);
    return math::AbsIOp::create(b, l, a[0]);
  });
  add<ExpOp>(patterns, [](OpBuilder &b, Location l, Args a, ExpOp) -> Value {
    return math::ExpOp::create(b, l, a[0]);
  });
  add<LogOp>(patterns, [](OpBuilder &b, Location l, Args a, LogOp) -> Value {
    return math::LogOp::create(b, l, a[0]);
  });
  add<SqrtOp>(patterns, [](OpBuilder &b, Location l, Args a, SqrtOp) -> Value {
    return math::SqrtOp::create(b, l, a[0]);
  });
  add<RsqrtOp>(patterns,
               [](OpBuilder &b, Location l, Args a, RsqrtOp) -> Value {
                 return math::RsqrtOp::create(b, l, a[0]);
               });
  add<TanhOp>(patterns, [](OpBuilder &b, Location l, Args a, TanhOp) -> Value {
    return math::TanhOp::create(b, l, a[0]);
  });
  add<ErfOp>(patterns, [](OpBuilder &b, Location l, Args a, ErfOp) -> Value {
    return math::ErfOp::create(b, l, a[0]);
  });
  add<SinOp>(patterns, [](OpBuilder &b, Location l, Args a, SinOp) -> Value {
    return math::SinOp::create(b, l, a[0]);
  });
  add<CosOp>(patterns, [](OpBuilder &b, Location l, Args a, CosOp) -> Value {
    return math::CosOp::create(b, l, a[0]);
  });
  add<AtanOp>(patterns, [](OpBuilder &b, Location l, Args a, AtanOp) -> Value {
    return math::AtanOp::create(b, l, a[0]);
  });
  add<SigmoidOp>(patterns, [](OpBuilder &b, Location l, Args a, SigmoidOp) {
    return sigmoid(b, l, a[0]);
  });
  add<ReluOp>(patterns, [](OpBuilder &b, Location l, Args a, ReluOp) -> Value {
    Value zero = constantLike(b, l, a[0], 0.0);
    if (isFloat(a[0]))
      return arith::MaximumFOp::create(b, l, a[0], zero);
    return arith::MaxSIOp::create(b, l, a[0], zero);
  });
  add<GeluOp>(patterns, [](OpBuilder &b, Location l, Args a, GeluOp op) {
    return gelu(b, l, a[0], op.getApproximate());
  });
  add<CompareOp>(patterns, [](OpBuilder &b, Location l, Args a, CompareOp op) {
    return compare(b, l, a[0], a[1], op.getDirection());
  });
  add<SelectOp>(patterns,
                [](OpBuilder &b, Location l, Args a, SelectOp) -> Value {
                  return arith::SelectOp::create(b, l, a[0], a[1], a[2]);
                });
  add<BitcastOp>(patterns,
                 [](OpBuilder &b, Location l, Args a, BitcastOp op) -> Value {
                   return arith::BitcastOp::create(
                       b, l, op.getType().getElementType(), a[0]);
                 });
  add<FakeQuantOp>(patterns,
                   [](OpBuilder &b, Location l, Args a, FakeQuantOp op) {
                     return roundToFormat(b, l, a[0], *op.getFormat(),
                                          op.getSaturate());
                   });
  add<CastOp>(patterns, [](OpBuilder &b, Location l, Args a, CastOp op) {
    return convertScalar(b, l, a[0], op.getType().getElementType(),
                         op.getSaturate());
  });
}
