//===- RLXToLinalg.cpp - The convert-rlx-to-linalg pass -------------------===//

#include "conversion/RLXToLinalg/RLXToLinalg.h"
#include "conversion/RLXToLinalg/PackedMatmul.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_CONVERTRLXTOLINALG
#include "conversion/RLXToLinalg/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

void mlir::rlx::populateRLXToLinalgPatterns(RewritePatternSet &patterns,
                                            bool tensorCoreProducts) {
  populateElementwiseToLinalgPatterns(patterns);
  populateStructuredToLinalgPatterns(patterns, tensorCoreProducts);
  populateShapeToLinalgPatterns(patterns);
  populateRandomToLinalgPatterns(patterns);
  populateBlockDequantizeToLinalgPatterns(patterns);
  populateDotOperandsToLinalgPatterns(patterns);
  populateUnsignedCastPatterns(patterns);
}

namespace {
struct ConvertRLXToLinalgPass
    : mlir::rlx::impl::ConvertRLXToLinalgBase<ConvertRLXToLinalgPass> {
  using Base::Base;
  /// The dialects the lowering produces.
  ConversionTarget loweredTarget() {
    ConversionTarget target(getContext());
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           cf::ControlFlowDialect, arith::ArithDialect,
                           math::MathDialect>();
    return target;
  }

  void runOnOperation() override {
    ConversionTarget target = loweredTarget();
    target.addIllegalDialect<RLXDialect>();
    // Params are entry-point arguments by the time code is generated; the
    // artifact ABI pass, not this conversion, decides how they are passed.
    target.addLegalOp<ParamOp>();
    // A matmul or conv reads its packed weight through the unpack (it must
    // still be there when they are lowered); an unpack anything else
    // reads is copied back below.
    target.addLegalOp<UnpackDotOperandOp>();
    // So is the dequantization of packed codes and scales (a block-scaled
    // weight's) until its matmuls are lowered; whatever else reads it gets
    // it lowered after.
    target.addDynamicallyLegalOp<BlockDequantizeOp>(
        [](BlockDequantizeOp op) { return bool(packedBlockScaledSource(op)); });
    RewritePatternSet patterns(&getContext());
    populateRLXToLinalgPatterns(patterns, tensorCoreProducts);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    if (failed(lowerPackedBlockScaledWeights()))
      return signalPassFailure();
    SmallVector<UnpackDotOperandOp> unpacks;
    getOperation()->walk([&](UnpackDotOperandOp op) { unpacks.push_back(op); });
    for (UnpackDotOperandOp op : unpacks) {
      if (!op->use_empty()) {
        OpBuilder b(op);
        op.getResult().replaceAllUsesWith(buildUnpack(b, op.getLoc(), op));
      }
      op->erase();
    }
    makeIntegersSignless(getOperation());
  }

  /// The dequantizations of packed codes and scales the matmuls left: the
  /// unread ones erased, the others lowered as any.
  LogicalResult lowerPackedBlockScaledWeights() {
    SmallVector<BlockDequantizeOp> left;
    getOperation()->walk([&](BlockDequantizeOp op) { left.push_back(op); });
    bool read = false;
    for (BlockDequantizeOp op : left) {
      if (op->use_empty())
        op->erase();
      else
        read = true;
    }
    if (!read)
      return success();
    ConversionTarget target = loweredTarget();
    target.addLegalOp<UnpackDotOperandOp>();
    target.addIllegalOp<BlockDequantizeOp>();
    RewritePatternSet patterns(&getContext());
    populateBlockDequantizeToLinalgPatterns(patterns);
    return applyPartialConversion(getOperation(), target, std::move(patterns));
  }
};
} // namespace
