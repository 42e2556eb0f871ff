//===- Autodiff.cpp - Expanding every transform marker --------------------===//
///
/// \file
/// rlx-autodiff drives the marker passes to a fixpoint: each round runs
/// rlx-expand-jacobians, rlx-reverse-mode, rlx-forward-mode and
/// rlx-expand-vmap, each expanding the markers of its kind whose callee
/// reaches no marker, so markers compose in any nesting (vmap of grad, grad
/// of a function holding a vmap) and those rules emit (remat's VJP is a vjp
/// marker, a batched custom_vjp maps its fwd and bwd with vmaps) are
/// expanded in a later round. It ends: checkNoRecursion holds, so some
/// marker is always ready and every marker an expansion emits names a
/// function below the one it expanded. Then the scratch functions nothing
/// names are erased and rlx-lower-custom-rules makes custom rules calls.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/Transforms/MarkerExpansion.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXAUTODIFF
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

llvm::SetVector<Operation *> markersOf(ModuleOp module) {
  llvm::SetVector<Operation *> markers;
  module.walk([&](TransformMarkerOpInterface op) { markers.insert(op); });
  return markers;
}

/// Erases the scratch functions nothing names any more (one may name
/// another: repeat until none goes).
void eraseUnusedScratch(ModuleOp module, SymbolTableCollection &symbols) {
  bool erased = true;
  while (erased) {
    erased = false;
    for (auto fn :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!fn->hasAttr(kScratchAttrName) ||
          !SymbolTable::symbolKnownUseEmpty(fn, module))
        continue;
      symbols.getSymbolTable(module).erase(fn);
      erased = true;
    }
  }
}

struct RLXAutodiffPass : mlir::rlx::impl::RLXAutodiffBase<RLXAutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    if (failed(checkNoRecursion(module, symbols)))
      return signalPassFailure();
    OpPassManager round(ModuleOp::getOperationName());
    round.addPass(createRLXExpandJacobians());
    round.addPass(createRLXReverseMode());
    round.addPass(createRLXForwardMode());
    round.addPass(createRLXExpandVmap());
    llvm::SetVector<Operation *> markers = markersOf(module);
    while (!markers.empty()) {
      if (failed(runPipeline(round, module)))
        return signalPassFailure();
      llvm::SetVector<Operation *> left = markersOf(module);
      // A round that expands nothing would repeat forever.
      if (!left.empty() && left == markers) {
        left.front()->emitOpError("cannot be expanded: its callee keeps "
                                  "holding markers");
        return signalPassFailure();
      }
      markers = std::move(left);
    }
    eraseUnusedScratch(module, symbols);
    OpPassManager lower(ModuleOp::getOperationName());
    lower.addPass(createRLXLowerCustomRules());
    if (failed(runPipeline(lower, module)))
      return signalPassFailure();
  }
};

} // namespace
