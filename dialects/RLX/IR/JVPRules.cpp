//===- JVPRules.cpp - Forward-mode rules of rlx ops -----------------------===//
///
/// \file
/// DifferentiableOpInterface::buildJVP for every rlx op. A null tangent is
/// zero; rules skip its terms. Ops linear in their operands re-apply
/// themselves to the tangents.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/DerivativeRules.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/IRMapping.h"

#include <optional>

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::ad;

namespace {

bool isFloatTensor(Value v) {
  return isa<FloatType>(tensorType(v).getElementType());
}

bool allNull(ArrayRef<Value> values) {
  return llvm::all_of(values, [](Value v) { return !v; });
}

/// `op` applied to the tangents (zeros for null ones, `keep` operands as
/// they are): the tangent of an op linear in the tangent operands.
Value applyToTangents(OpBuilder &builder, Operation *op, ArrayRef<Value> tan,
                      ArrayRef<unsigned> keep = {}) {
  RuleBuilder b{builder, op->getLoc()};
  IRMapping mapping;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    if (llvm::is_contained(keep, i))
      continue;
    mapping.map(operand, tan[i] ? tan[i] : zerosLike(b, operand));
  }
  return builder.clone(*op, mapping)->getResult(0);
}

/// Sum of the non-null terms, broadcast to `like`; null when none.
Value sumTerms(RuleBuilder b, ArrayRef<Value> terms, Value like) {
  Value total;
  for (Value t : terms)
    if (t)
      total = total ? add(b, total, t) : t;
  return total ? broadcastLike(b, total, like) : Value();
}

/// The JVP of a two-operand op: one term per non-null tangent (`lhsTerm`
/// and `rhsTerm` map that tangent to the result), summed.
using TermFn = function_ref<Value(RuleBuilder, Value)>;
LogicalResult binaryJVP(Operation *op, OpBuilder &builder,
                        ArrayRef<Value> tan, SmallVectorImpl<Value> &out,
                        TermFn lhsTerm, TermFn rhsTerm) {
  if (allNull(tan) || !isFloatTensor(op->getResult(0))) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, op->getLoc()};
  Value t0 = tan[0] ? lhsTerm(b, tan[0]) : Value();
  Value t1 = tan[1] ? rhsTerm(b, tan[1]) : Value();
  out.push_back(sumTerms(b, {t0, t1}, op->getResult(0)));
  return success();
}

LogicalResult unaryJVP(Operation *op, OpBuilder &builder, ArrayRef<Value> tan,
                       SmallVectorImpl<Value> &out) {
  if (!tan[0] || !isFloatTensor(op->getResult(0))) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, op->getLoc()};
  out.push_back(mul(b, tan[0], unaryDerivative(b, op)));
  return success();
}

/// Ops linear in all their operands.
LogicalResult linearJVP(Operation *op, OpBuilder &builder, ArrayRef<Value> tan,
                        SmallVectorImpl<Value> &out) {
  if (allNull(tan) || !isFloatTensor(op->getResult(0))) {
    out.push_back(Value());
    return success();
  }
  out.push_back(applyToTangents(builder, op, tan));
  return success();
}

} // namespace

#define RLX_UNARY_JVP(OpTy)                                                    \
  LogicalResult OpTy::buildJVP(OpBuilder &b, ArrayRef<Value> tan,              \
                               SmallVectorImpl<Value> &out,                    \
                               SymbolTableCollection &) {                      \
    return unaryJVP(*this, b, tan, out);                                       \
  }
RLX_UNARY_JVP(AbsOp)
RLX_UNARY_JVP(ExpOp)
RLX_UNARY_JVP(LogOp)
RLX_UNARY_JVP(SqrtOp)
RLX_UNARY_JVP(RsqrtOp)
RLX_UNARY_JVP(TanhOp)
RLX_UNARY_JVP(ErfOp)
RLX_UNARY_JVP(SinOp)
RLX_UNARY_JVP(CosOp)
RLX_UNARY_JVP(AtanOp)
RLX_UNARY_JVP(SigmoidOp)
RLX_UNARY_JVP(ReluOp)
RLX_UNARY_JVP(GeluOp)
#undef RLX_UNARY_JVP

#define RLX_LINEAR_JVP(OpTy)                                                   \
  LogicalResult OpTy::buildJVP(OpBuilder &b, ArrayRef<Value> tan,              \
                               SmallVectorImpl<Value> &out,                    \
                               SymbolTableCollection &) {                      \
    return linearJVP(*this, b, tan, out);                                      \
  }
RLX_LINEAR_JVP(AddOp)
RLX_LINEAR_JVP(SubOp)
RLX_LINEAR_JVP(NegOp)
RLX_LINEAR_JVP(SumOp)
RLX_LINEAR_JVP(MeanOp)
RLX_LINEAR_JVP(AvgPool2DOp)
RLX_LINEAR_JVP(ReshapeOp)
RLX_LINEAR_JVP(TransposeOp)
RLX_LINEAR_JVP(BroadcastInDimOp)
RLX_LINEAR_JVP(SliceOp)
RLX_LINEAR_JVP(PadOp)
RLX_LINEAR_JVP(ConcatOp)
#undef RLX_LINEAR_JVP

LogicalResult ParamOp::buildJVP(OpBuilder &, ArrayRef<Value>,
                                SmallVectorImpl<Value> &out,
                                SymbolTableCollection &) {
  out.push_back(Value());
  return success();
}

LogicalResult ConstantOp::buildJVP(OpBuilder &, ArrayRef<Value>,
                                   SmallVectorImpl<Value> &out,
                                   SymbolTableCollection &) {
  out.push_back(Value());
  return success();
}

LogicalResult BitcastOp::buildJVP(OpBuilder &, ArrayRef<Value>,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  out.push_back(Value());
  return success();
}

LogicalResult StopGradientOp::buildJVP(OpBuilder &, ArrayRef<Value>,
                                       SmallVectorImpl<Value> &out,
                                       SymbolTableCollection &) {
  out.push_back(Value());
  return success();
}

LogicalResult CompareOp::buildJVP(OpBuilder &, ArrayRef<Value>,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  out.push_back(Value());
  return success();
}

LogicalResult MulOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  return binaryJVP(
      *this, builder, tan, out,
      [&](RuleBuilder b, Value t) -> Value { return mul(b, t, getRhs()); },
      [&](RuleBuilder b, Value t) -> Value { return mul(b, getLhs(), t); });
}

LogicalResult DivOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  // (ta - r tb) / b.
  return binaryJVP(
      *this, builder, tan, out,
      [&](RuleBuilder b, Value t) -> Value { return div(b, t, getRhs()); },
      [&](RuleBuilder b, Value t) -> Value { return neg(b, div(b, mul(b, getResult(), t), getRhs())); });
}

LogicalResult PowOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  // Both partials come from one builder call, made once and only if needed.
  std::optional<std::pair<Value, Value>> partials;
  auto get = [&](RuleBuilder b) {
    if (!partials)
      partials = powPartials(b, *this);
    return *partials;
  };
  return binaryJVP(
      *this, builder, tan, out,
      [&](RuleBuilder b, Value t) -> Value { return mul(b, t, get(b).first); },
      [&](RuleBuilder b, Value t) -> Value { return mul(b, t, get(b).second); });
}

LogicalResult RemOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  // d(x rem y) = dx - trunc(x / y) dy, the quotient read as (x - r) / y.
  return binaryJVP(
      *this, builder, tan, out, [&](RuleBuilder, Value t) -> Value { return t; },
      [&](RuleBuilder b, Value t) -> Value {
        Value n = div(b, sub(b, getLhs(), getResult()), getRhs());
        return neg(b, mul(b, t, n));
      });
}

static LogicalResult chooserJVP(Operation *op, OpBuilder &builder,
                                ArrayRef<Value> tan,
                                SmallVectorImpl<Value> &out) {
  Value share;
  auto get = [&](RuleBuilder b) {
    if (!share)
      share = chooserShare(b, op);
    return share;
  };
  return binaryJVP(
      op, builder, tan, out,
      [&](RuleBuilder b, Value t) -> Value { return mul(b, t, get(b)); },
      [&](RuleBuilder b, Value t) -> Value {
        Value s = get(b);
        return mul(b, t, sub(b, scalarLike(b, s, 1), s));
      });
}

LogicalResult MaximumOp::buildJVP(OpBuilder &b, ArrayRef<Value> tan,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  return chooserJVP(*this, b, tan, out);
}

LogicalResult MinimumOp::buildJVP(OpBuilder &b, ArrayRef<Value> tan,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  return chooserJVP(*this, b, tan, out);
}

LogicalResult SelectOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &) {
  if (allNull(tan.drop_front()) || !isFloatTensor(getResult())) {
    out.push_back(Value());
    return success();
  }
  out.push_back(applyToTangents(builder, *this, tan, /*keep=*/{0}));
  return success();
}

LogicalResult CastOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                               SmallVectorImpl<Value> &out,
                               SymbolTableCollection &) {
  if (!tan[0] || !isFloatTensor(getResult()) || !isFloatTensor(getX())) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  out.push_back(castTo(b, tan[0], getType().getElementType()));
  return success();
}

LogicalResult MatmulOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &) {
  return binaryJVP(
      *this, builder, tan, out,
      [&](RuleBuilder b, Value t) -> Value { return matmul(b, t, getRhs()); },
      [&](RuleBuilder b, Value t) -> Value { return matmul(b, getLhs(), t); });
}

LogicalResult Conv2DOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &) {
  // Bilinear: conv(tx, w) + conv(x, tw).
  auto withOperands = [&](Value input, Value filter) {
    IRMapping mapping;
    mapping.map(getInput(), input);
    mapping.map(getFilter(), filter);
    return builder.clone(*getOperation(), mapping)->getResult(0);
  };
  return binaryJVP(
      *this, builder, tan, out,
      [&](RuleBuilder, Value t) { return withOperands(t, getFilter()); },
      [&](RuleBuilder, Value t) { return withOperands(getInput(), t); });
}

LogicalResult MaxOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  if (!tan[0] || !isFloatTensor(getResult())) {
    out.push_back(Value());
    return success();
  }
  Value weighted = mul(b, tan[0], maxShare(b, *this));
  out.push_back(sum(b, weighted, getAxes(), getKeepdims()));
  return success();
}

LogicalResult SoftmaxOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  if (!tan[0]) {
    out.push_back(Value());
    return success();
  }
  int64_t axis = static_cast<int64_t>(getAxis());
  Value s = getResult();
  Value inner = sum(b, mul(b, tan[0], s), {axis}, /*keepdims=*/true);
  out.push_back(mul(b, s, sub(b, tan[0], inner)));
  return success();
}

LogicalResult LogSoftmaxOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                                     SmallVectorImpl<Value> &out,
                                     SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  if (!tan[0]) {
    out.push_back(Value());
    return success();
  }
  int64_t axis = static_cast<int64_t>(getAxis());
  Value softmax = ExpOp::create(b.b, b.loc, getResult());
  Value inner = sum(b, mul(b, tan[0], softmax), {axis}, /*keepdims=*/true);
  out.push_back(sub(b, tan[0], inner));
  return success();
}

LogicalResult GatherOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &) {
  if (!tan[0] || !isFloatTensor(getResult())) {
    out.push_back(Value());
    return success();
  }
  out.push_back(applyToTangents(builder, *this, tan, /*keep=*/{1}));
  return success();
}
