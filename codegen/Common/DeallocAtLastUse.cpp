//===- DeallocAtLastUse.cpp - Free temporaries after their last use -------===//

#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXDEALLOCATLASTUSE
#include "codegen/Common/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// The op of `block` that holds `op` (itself or an ancestor).
Operation *inBlock(Operation *op, Block *block) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

struct RLXDeallocAtLastUsePass
    : mlir::rlx::impl::RLXDeallocAtLastUseBase<RLXDeallocAtLastUsePass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs)
      moveUp(dealloc);
  }

  void moveUp(memref::DeallocOp dealloc) {
    Block *block = dealloc->getBlock();
    Value buffer = dealloc.getMemref();
    if (!buffer.getDefiningOp<memref::AllocOp>())
      return;
    // Every value that aliases the buffer: views, casts, of views.
    SmallVector<Value> aliases = {buffer};
    Operation *last = buffer.getDefiningOp();
    if (last->getBlock() != block)
      return;
    for (size_t i = 0; i < aliases.size(); ++i) {
      for (Operation *user : aliases[i].getUsers()) {
        if (user == dealloc)
          continue;
        Operation *holder = inBlock(user, block);
        if (!holder)
          return; // used outside this block: leave it
        if (holder->isBeforeInBlock(last))
          ; // keep the later one
        else
          last = holder;
        if (isa<ViewLikeOpInterface, memref::CastOp>(user))
          for (Value r : user->getResults())
            aliases.push_back(r);
      }
    }
    if (last->isBeforeInBlock(dealloc))
      dealloc->moveAfter(last);
  }
};

} // namespace
