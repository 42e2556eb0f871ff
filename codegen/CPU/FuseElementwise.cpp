//===- FuseElementwise.cpp - Elementwise fusion, no reshape propagation ---===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace rlx {
#define GEN_PASS_DEF_RLXFUSEELEMENTWISE
#include "codegen/CPU/Passes.h.inc"
} // namespace rlx

using namespace mlir;

namespace {

struct RLXFuseElementwisePass
    : rlx::impl::RLXFuseElementwiseBase<RLXFuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Fuse a producer only when it has this one use: recomputing a shared
    // producer in every consumer would duplicate work.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
