//===- DerivativeRules.cpp - Derivatives shared by VJP and JVP ------------===//

#include "dialects/RLX/IR/DerivativeRules.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;

namespace mlir::rlx::ad {

Value unaryDerivative(RuleBuilder b, Operation *op) {
  Value x = op->getOperand(0), r = op->getResult(0);
  auto c = [&](double v) { return scalarLike(b, x, v); };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<AbsOp>([&](auto) {
        Value sign = select(b, compare(b, "gt", x, c(0)), c(1), c(0));
        return sub(b, sign, select(b, compare(b, "lt", x, c(0)), c(1), c(0)));
      })
      .Case<ExpOp>([&](auto) { return r; })
      .Case<LogOp>([&](auto) { return div(b, c(1), x); })
      .Case<SqrtOp>([&](auto) { return div(b, c(0.5), r); })
      .Case<RsqrtOp>([&](auto) {
        return mul(b, c(-0.5), mul(b, r, mul(b, r, r)));
      })
      .Case<TanhOp>([&](auto) { return sub(b, c(1), mul(b, r, r)); })
      .Case<ErfOp>([&](auto) {
        Value e = ExpOp::create(b.b, b.loc, neg(b, mul(b, x, x)));
        return mul(b, c(2.0 / std::sqrt(M_PI)), e);
      })
      .Case<SinOp>([&](auto) { return Value(CosOp::create(b.b, b.loc, x)); })
      .Case<CosOp>([&](auto) { return neg(b, SinOp::create(b.b, b.loc, x)); })
      .Case<AtanOp>([&](auto) {
        return div(b, c(1), add(b, c(1), mul(b, x, x)));
      })
      .Case<SigmoidOp>([&](auto) { return mul(b, r, sub(b, c(1), r)); })
      .Case<ReluOp>([&](auto) {
        return select(b, compare(b, "gt", x, c(0)), c(1), c(0));
      })
      .Case<GeluOp>([&](GeluOp gelu) {
        Value x2 = mul(b, x, x);
        if (gelu.getApproximate() == "erf") {
          // Phi(x) + x phi(x).
          Value cdf = mul(b, c(0.5),
                          add(b, c(1), ErfOp::create(b.b, b.loc,
                                                     mul(b, x, c(M_SQRT1_2)))));
          Value pdf = mul(b, c(1.0 / std::sqrt(2 * M_PI)),
                          ExpOp::create(b.b, b.loc, mul(b, c(-0.5), x2)));
          return add(b, cdf, mul(b, x, pdf));
        }
        // t = tanh(k0 (x + k1 x^3)):
        // 0.5 (1 + t) + 0.5 x (1 - t^2) k0 (1 + 3 k1 x^2).
        double k0 = std::sqrt(2.0 / M_PI), k1 = 0.044715;
        Value inner = mul(b, c(k0), add(b, x, mul(b, c(k1), mul(b, x2, x))));
        Value t = TanhOp::create(b.b, b.loc, inner);
        Value left = mul(b, c(0.5), add(b, c(1), t));
        Value dInner = mul(b, c(k0), add(b, c(1), mul(b, c(3 * k1), x2)));
        Value right =
            mul(b, mul(b, c(0.5), x), mul(b, sub(b, c(1), mul(b, t, t)), dInner));
        return add(b, left, right);
      });
}

std::pair<Value, Value> powPartials(RuleBuilder b, PowOp op) {
  Value a = op.getLhs(), e = op.getRhs(), r = op.getResult();
  Value one = scalarLike(b, a, 1), zero = scalarLike(b, a, 0);
  Value da = mul(
      b, e, PowOp::create(b.b, b.loc, a, broadcastLike(b, sub(b, e, one), r)));
  // Where a <= 0, a^b has no real log; take 0 there (as JAX does at 0).
  Value positive = compare(b, "gt", a, zero);
  Value safeA = select(b, positive, a, one);
  Value logA = select(b, positive, LogOp::create(b.b, b.loc, safeA), zero);
  Value db = mul(b, r, logA);
  return {da, db};
}

Value chooserShare(RuleBuilder b, Operation *op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  StringRef wins = isa<MaximumOp>(op) ? "gt" : "lt";
  Value one = scalarLike(b, lhs, 1), half = scalarLike(b, lhs, 0.5),
        zero = scalarLike(b, lhs, 0);
  Value tie = select(b, compare(b, "eq", lhs, rhs), half, zero);
  return select(b, compare(b, wins, lhs, rhs), one, tie);
}

Value maxShare(RuleBuilder b, MaxOp op) {
  Value x = op.getX();
  Value m = op.getResult();
  if (!op.getKeepdims()) {
    // Re-insert the reduced dims so the max broadcasts against x.
    auto xType = tensorType(x);
    SmallVector<int64_t> shape, mapped;
    for (int64_t d = 0; d < xType.getRank(); ++d) {
      if (llvm::is_contained(op.getAxes(), d)) {
        shape.push_back(1);
        continue;
      }
      mapped.push_back(d);
      shape.push_back(xType.getDimSize(d));
    }
    m = BroadcastInDimOp::create(
        b.b, b.loc, RankedTensorType::get(shape, xType.getElementType()), m,
        b.b.getDenseI64ArrayAttr(mapped));
  }
  Value one = scalarLike(b, x, 1), zero = scalarLike(b, x, 0);
  Value mask = select(b, compare(b, "eq", x, m), one, zero);
  Value count = sum(b, mask, op.getAxes(), /*keepdims=*/true);
  return div(b, mask, count);
}

FailureOr<Value> scatterAddByOneHot(RuleBuilder b, GatherOp op, Value g) {
  auto xType = op.getX().getType();
  auto idxType = op.getIndices().getType();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  int64_t size = xType.getDimSize(axis);
  if (ShapedType::isDynamic(size))
    return op.emitOpError("has no VJP when gathering along a dynamic dim");
  int64_t idxRank = idxType.getRank(), rank = xType.getRank();
  Type element = xType.getElementType();

  // onehot[i..., a] = (clamp(indices[i...]) == a).
  Value idx = op.getIndices();
  Value lo = scalar(b, idxType.getElementType(), 0);
  Value hi = scalar(b, idxType.getElementType(), double(size - 1));
  idx = MinimumOp::create(b.b, b.loc, MaximumOp::create(b.b, b.loc, idx, lo),
                          hi);
  SmallVector<int64_t> idxShape(idxType.getShape());
  idxShape.push_back(1);
  SmallVector<int64_t> idxDims;
  for (int64_t d = 0; d < idxRank; ++d)
    idxDims.push_back(d);
  Value idxCol = BroadcastInDimOp::create(
      b.b, b.loc, RankedTensorType::get(idxShape, idxType.getElementType()),
      idx, b.b.getDenseI64ArrayAttr(idxDims));
  SmallVector<Attribute> range;
  for (int64_t a = 0; a < size; ++a)
    range.push_back(IntegerAttr::get(idxType.getElementType(), a));
  auto rangeType = RankedTensorType::get({size}, idxType.getElementType());
  Value iota = ConstantOp::create(b.b, b.loc,
                                  DenseElementsAttr::get(rangeType, range));
  Value onehot = castTo(b, compare(b, "eq", idxCol, iota), element);

  // g is [pre, I..., post]: move I to the back, flatten, contract.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < axis; ++d)
    perm.push_back(d);
  for (int64_t d = axis + idxRank; d < axis + idxRank + (rank - axis - 1); ++d)
    perm.push_back(d);
  for (int64_t d = axis; d < axis + idxRank; ++d)
    perm.push_back(d);
  Value gt = transpose(b, g, perm);
  auto gtType = tensorType(gt);
  int64_t outer = rank - 1;
  auto flatten = [&](ArrayRef<int64_t> dims) {
    int64_t p = 1;
    for (int64_t s : dims) {
      if (ShapedType::isDynamic(s))
        return ShapedType::kDynamic;
      p *= s;
    }
    return p;
  };
  SmallVector<int64_t> outerShape(gtType.getShape().take_front(outer));
  int64_t outerSize = flatten(outerShape);
  int64_t innerSize = flatten(gtType.getShape().drop_front(outer));
  auto flatType = RankedTensorType::get({outerSize, innerSize}, element);
  auto ohType = RankedTensorType::get({innerSize, size}, element);
  auto reshapeOk = [](RankedTensorType from, RankedTensorType to) {
    return (from.getNumDynamicDims() == 0 && to.getNumDynamicDims() == 0) ||
           (from.getNumDynamicDims() > 0 && to.getNumDynamicDims() == 1);
  };
  if (!reshapeOk(gtType, flatType) ||
      !reshapeOk(tensorType(onehot), ohType))
    return op.emitOpError("has no VJP for this mix of dynamic dims");
  Value product = matmul(b, reshapeTo(b, gt, flatType), reshapeTo(b, onehot, ohType));
  // [outer, A] → [pre..., post..., A] → [pre..., A, post...].
  SmallVector<int64_t> unflat(outerShape);
  unflat.push_back(size);
  auto unflatType = RankedTensorType::get(unflat, element);
  if (!reshapeOk(tensorType(product), unflatType) &&
      tensorType(product) != unflatType)
    return op.emitOpError("has no VJP for this mix of dynamic dims");
  Value shaped = reshapeTo(b, product, unflatType);
  SmallVector<int64_t> back;
  for (int64_t d = 0; d < axis; ++d)
    back.push_back(d);
  back.push_back(rank - 1);
  for (int64_t d = axis; d < rank - 1; ++d)
    back.push_back(d);
  return reshapeTo(b, transpose(b, shaped, back), xType);
}

} // namespace mlir::rlx::ad
