//===- MaterializeWorkspace.cpp - The planned arena as one allocation -----===//
///
/// \file
/// After the CPU kernels are built, the arena planned by rlx-plan-workspace
/// is allocated once at entry and freed at return, and each planned
/// temporary becomes a memref.view at its offset: one allocation per call
/// instead of one per temporary, and bytes reused between temporaries that
/// are not live together. (Views made before the kernels kept the matmul's
/// C tile from being hoisted out of its K loop.)
///
//===----------------------------------------------------------------------===//

#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXMATERIALIZEWORKSPACE
#include "codegen/Common/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// Allocates the arena planned for `func` and makes every planned
/// temporary a view of it.
void materialize(func::FuncOp func, int64_t arenaBytes) {
  Block &body = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Location loc = func.getLoc();
  auto arenaType = MemRefType::get({arenaBytes}, b.getI8Type());
  Value arena = memref::AllocOp::create(b, loc, arenaType, ValueRange{},
                                        b.getI64IntegerAttr(64));
  SmallVector<memref::AllocOp> planned;
  func.walk([&](memref::AllocOp alloc) {
    if (alloc->hasAttr("rlx.arena_offset"))
      planned.push_back(alloc);
  });
  for (memref::AllocOp alloc : planned) {
    int64_t offset =
        alloc->getAttrOfType<IntegerAttr>("rlx.arena_offset").getInt();
    b.setInsertionPoint(alloc);
    Value shift = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
    Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(),
                                        arena, shift, ValueRange{});
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.getResult().replaceAllUsesWith(view);
    alloc.erase();
  }
  func.walk([&](func::ReturnOp ret) {
    OpBuilder at(ret);
    memref::DeallocOp::create(at, ret.getLoc(), arena);
  });
}

struct RLXMaterializeWorkspacePass
    : mlir::rlx::impl::RLXMaterializeWorkspaceBase<RLXMaterializeWorkspacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto arena = func->getAttrOfType<IntegerAttr>("rlx.workspace_arena");
    if (!arena)
      return;
    func->removeAttr("rlx.workspace_arena");
    if (arena.getInt() > 0 && func.getBody().hasOneBlock())
      materialize(func, arena.getInt());
  }
};

} // namespace
