//===- LowerCustomRules.cpp - custom_vjp, custom_jvp, remat as calls ------===//
///
/// \file
/// rlx-lower-custom-rules: outside differentiation, custom_vjp, custom_jvp
/// and remat compute their callee; each becomes a func.call of it. Their
/// rules matter only while markers remain, so a module still holding a
/// marker is an error.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/Transforms/Passes.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXLOWERCUSTOMRULES
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

struct RLXLowerCustomRulesPass
    : mlir::rlx::impl::RLXLowerCustomRulesBase<RLXLowerCustomRulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    WalkResult markers = module.walk([](TransformMarkerOpInterface marker) {
      marker.emitOpError("expects markers expanded (rlx-autodiff) before "
                         "custom rules are lowered to calls");
      return WalkResult::interrupt();
    });
    if (markers.wasInterrupted())
      return signalPassFailure();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<CustomVJPOp, CustomJVPOp, RematOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      auto callee = op->getAttrOfType<FlatSymbolRefAttr>("callee");
      auto call = func::CallOp::create(b, op->getLoc(), callee,
                                       op->getResultTypes(), op->getOperands());
      op->replaceAllUsesWith(call.getResults());
      op->erase();
    }
  }
};

} // namespace
