//===- SinkTransposes.cpp - Moving layout changes past elementwise ops ----===//
///
/// \file
/// rlx-sink-transposes: an imported NCHW model runs each convolution in
/// NHWC between two transposes, and the bias add and activation between
/// them work on the NCHW copy, so every layer copies its activations twice.
/// Moving a transpose below the elementwise ops that read it (the other
/// operand, when it broadcasts, is permuted the other way: a bias of a few
/// elements, or a weight the runtime prepares once) brings it next to the
/// next layer's inverse transpose, and the two fold away. Sinking stops at
/// anything that is not elementwise.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXSINKTRANSPOSES
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

bool isUnaryElementwise(Operation *op) {
  return isa<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, ErfOp,
             SinOp, CosOp, AtanOp, SigmoidOp, ReluOp>(op);
}

bool isBinaryElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, RemOp, PowOp, MaximumOp, MinimumOp>(
      op);
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = static_cast<int64_t>(i);
  return inv;
}

/// f(transpose(x, P)) -> transpose(f(x), P) for a unary elementwise f.
struct SinkThroughUnary : RewritePattern {
  explicit SinkThroughUnary(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isUnaryElementwise(op))
      return failure();
    auto t = op->getOperand(0).getDefiningOp<TransposeOp>();
    if (!t || !t->hasOneUse())
      return failure();
    OperationState state(op->getLoc(), op->getName(), ValueRange{t.getX()},
                         TypeRange{t.getX().getType()}, op->getAttrs());
    Operation *inner = rewriter.create(state);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner->getResult(0),
                                             t.getPermutation());
    return success();
  }
};

/// f(transpose(x, P), transpose(y, P)) -> transpose(f(x, y), P), and
/// f(transpose(x, P), b) -> transpose(f(x, b'), P) where b broadcasts (has
/// fewer elements than the result) and b' is b in x's layout.
struct SinkThroughBinary : RewritePattern {
  explicit SinkThroughBinary(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isBinaryElementwise(op))
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType.hasStaticShape())
      return failure();
    const int64_t rank = resultType.getRank();
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    auto tl = lhs.getDefiningOp<TransposeOp>(),
         tr = rhs.getDefiningOp<TransposeOp>();
    auto fullRank = [&](TransposeOp t) {
      return t && t.getType().getRank() == rank &&
             t.getType().getShape() == resultType.getShape();
    };
    ArrayRef<int64_t> perm;
    SmallVector<Value> operands;
    if (fullRank(tl) && fullRank(tr) &&
        tl.getPermutation() == tr.getPermutation()) {
      // Both in the other layout: no copy added.
      perm = tl.getPermutation();
      operands = {tl.getX(), tr.getX()};
    } else {
      // One in the other layout, the other a broadcast operand.
      bool onLeft = fullRank(tl) && tl->hasOneUse();
      TransposeOp t = onLeft ? tl : tr;
      if (!onLeft && !(fullRank(tr) && tr->hasOneUse()))
        return failure();
      Value other = onLeft ? rhs : lhs;
      auto otherType = dyn_cast<RankedTensorType>(other.getType());
      if (!otherType || !otherType.hasStaticShape() ||
          otherType.getNumElements() >= resultType.getNumElements())
        return failure();
      perm = t.getPermutation();
      // Aligned from the right as NumPy broadcasting does, then permuted.
      SmallVector<int64_t> shape(rank - otherType.getRank(), 1);
      llvm::append_range(shape, otherType.getShape());
      Location loc = op->getLoc();
      Value expanded = other;
      if (otherType.getRank() != rank)
        expanded = ReshapeOp::create(rewriter, loc,
                                     otherType.clone(shape), other);
      Value permuted =
          TransposeOp::create(rewriter, loc, expanded, inverse(perm));
      operands = onLeft ? SmallVector<Value>{t.getX(), permuted}
                        : SmallVector<Value>{permuted, t.getX()};
    }
    SmallVector<int64_t> innerShape;
    for (int64_t d : inverse(perm))
      innerShape.push_back(resultType.getDimSize(d));
    OperationState state(op->getLoc(), op->getName(), operands,
                         TypeRange{resultType.clone(innerShape)},
                         op->getAttrs());
    Operation *inner = rewriter.create(state);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner->getResult(0), perm);
    return success();
  }
};

struct RLXSinkTransposesPass
    : mlir::rlx::impl::RLXSinkTransposesBase<RLXSinkTransposesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkThroughUnary, SinkThroughBinary>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
