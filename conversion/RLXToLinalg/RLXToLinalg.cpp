//===- RLXToLinalg.cpp - The convert-rlx-to-linalg pass -------------------===//

#include "conversion/RLXToLinalg/RLXToLinalg.h"
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

void mlir::rlx::populateRLXToLinalgPatterns(RewritePatternSet &patterns) {
  populateElementwiseToLinalgPatterns(patterns);
  populateStructuredToLinalgPatterns(patterns);
  populateShapeToLinalgPatterns(patterns);
  populateRandomToLinalgPatterns(patterns);
}

namespace {
struct ConvertRLXToLinalgPass
    : mlir::rlx::impl::ConvertRLXToLinalgBase<ConvertRLXToLinalgPass> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           cf::ControlFlowDialect,
                           arith::ArithDialect, math::MathDialect>();
    target.addIllegalDialect<RLXDialect>();
    // Params are entry-point arguments by the time code is generated; the
    // artifact ABI pass, not this conversion, decides how they are passed.
    target.addLegalOp<ParamOp>();
    RewritePatternSet patterns(&getContext());
    populateRLXToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
