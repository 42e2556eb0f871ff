//===- MoveHalfFloatsAsI16.cpp - 16-bit float data movement as i16 ------===//
///
/// \file
/// Data movement of bf16 and f16 vectors (an element inserted or
/// extracted, a shuffle, a select) runs on i16 vectors, bitcast at its
/// ends. x86 without native 16-bit floats promotes a bf16 vector to f32 to
/// move its elements, and truncates it back with a call of `__truncsfbf2`
/// per element: a strided read built lane by lane (a transposing
/// `vector.transfer_read`, 32 `insertelement`s) made a mixed-precision
/// MLP step spend 38% of its artifact's time in those calls on Zen 3. The
/// bit patterns move unchanged, so every NaN keeps its payload. LLVM folds
/// the bitcasts between the rewritten ops (a loaded scalar becomes an i16
/// load, a loop-carried vector an i16 phi).
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUMOVEHALFFLOATSASI16
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// The i16 type shaped like `type` when that is a 16-bit float or a vector
/// of them; null otherwise.
Type asI16(Type type) {
  auto i16 = IntegerType::get(type.getContext(), 16);
  if (isa<BFloat16Type, Float16Type>(type))
    return i16;
  if (auto vector = dyn_cast<VectorType>(type))
    if (isa<BFloat16Type, Float16Type>(vector.getElementType()))
      return vector.clone(i16);
  return {};
}

Value bitcastTo(PatternRewriter &rewriter, Location loc, Type type,
                Value value) {
  return LLVM::BitcastOp::create(rewriter, loc, type, value);
}

struct InsertElementAsI16 : OpRewritePattern<LLVM::InsertElementOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::InsertElementOp op,
                                PatternRewriter &rewriter) const override {
    Type vector = asI16(op.getType());
    if (!vector)
      return failure();
    Location loc = op.getLoc();
    Value inserted = LLVM::InsertElementOp::create(
        rewriter, loc, bitcastTo(rewriter, loc, vector, op.getVector()),
        bitcastTo(rewriter, loc, asI16(op.getValue().getType()), op.getValue()),
        op.getPosition());
    rewriter.replaceOp(op, bitcastTo(rewriter, loc, op.getType(), inserted));
    return success();
  }
};

struct ExtractElementAsI16 : OpRewritePattern<LLVM::ExtractElementOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::ExtractElementOp op,
                                PatternRewriter &rewriter) const override {
    Type vector = asI16(op.getVector().getType());
    if (!vector)
      return failure();
    Location loc = op.getLoc();
    Value extracted = LLVM::ExtractElementOp::create(
        rewriter, loc, bitcastTo(rewriter, loc, vector, op.getVector()),
        op.getPosition());
    rewriter.replaceOp(op, bitcastTo(rewriter, loc, op.getType(), extracted));
    return success();
  }
};

struct ShuffleAsI16 : OpRewritePattern<LLVM::ShuffleVectorOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::ShuffleVectorOp op,
                                PatternRewriter &rewriter) const override {
    Type in = asI16(op.getV1().getType());
    if (!in)
      return failure();
    Location loc = op.getLoc();
    Value shuffled = LLVM::ShuffleVectorOp::create(
        rewriter, loc, bitcastTo(rewriter, loc, in, op.getV1()),
        bitcastTo(rewriter, loc, in, op.getV2()), op.getMask());
    rewriter.replaceOp(op, bitcastTo(rewriter, loc, op.getType(), shuffled));
    return success();
  }
};

struct SelectAsI16 : OpRewritePattern<LLVM::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::SelectOp op,
                                PatternRewriter &rewriter) const override {
    Type type = asI16(op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    Value selected = LLVM::SelectOp::create(
        rewriter, loc, op.getCondition(),
        bitcastTo(rewriter, loc, type, op.getTrueValue()),
        bitcastTo(rewriter, loc, type, op.getFalseValue()));
    rewriter.replaceOp(op, bitcastTo(rewriter, loc, op.getType(), selected));
    return success();
  }
};

struct RLXCPUMoveHalfFloatsAsI16
    : rlx::impl::RLXCPUMoveHalfFloatsAsI16Base<RLXCPUMoveHalfFloatsAsI16> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<InsertElementAsI16, ExtractElementAsI16, ShuffleAsI16,
                 SelectAsI16>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
