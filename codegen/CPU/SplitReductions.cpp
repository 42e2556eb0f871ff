//===- SplitReductions.cpp - Full reductions split for both cores ---------===//
///
/// \file
/// A reduction of a long 1-D run into a scalar (a sum over every element)
/// has no parallel loop, so it runs on one core however many there are.
/// Here such an op, when its reduction is one static dim of at least 2^16
/// elements, is split by linalg's splitReduction: the run becomes
/// `parts x (n / parts)`, a first op folds each part into its own partial
/// (a parallel dim: rlx-cpu-parallelize spreads it over the cores, and each
/// part's contiguous inner run vectorizes), and a second folds the partials.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUSPLITREDUCTIONS
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// Reductions shorter than this stay whole (a split costs a second op).
constexpr int64_t kMinSplitLength = int64_t(1) << 16;
/// Parts at most; each keeps at least kMinPartLength elements.
constexpr int64_t kMaxParts = 64, kMinPartLength = 4096;

struct RLXCPUSplitReductionsPass
    : mlir::rlx::impl::RLXCPUSplitReductionsBase<RLXCPUSplitReductionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::ControlSplitReductionFn control =
        [](linalg::LinalgOp op) -> linalg::SplitReductionOptions {
      linalg::SplitReductionOptions none{/*ratio=*/0, /*index=*/0,
                                         /*innerParallel=*/false};
      if (op.getNumLoops() != 1 || op.getNumReductionLoops() != 1 ||
          op.getNumDpsInits() != 1)
        return none;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t n = ranges[0];
      if (ShapedType::isDynamic(n) || n < kMinSplitLength)
        return none;
      for (int64_t parts = kMaxParts; parts >= 2; parts /= 2)
        if (n % parts == 0 && n / parts >= kMinPartLength)
          return {parts, 0, /*innerParallel=*/false};
      return none;
    };
    linalg::populateSplitReductionPattern(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
