//===- PlanWorkspace.cpp - One arena for the temporaries of a function ----===//
///
/// \file
/// After deallocations sit at last use, every statically shaped temporary
/// of a function's top-level code has a live range in op order. They are
/// packed into one arena (ArenaPlan.h): rlx-plan-workspace records each
/// temporary's offset (`rlx.arena_offset`) and the arena size, and
/// rlx-materialize-workspace, after the CPU kernels are built, allocates
/// the arena once at entry, frees it at return and turns each temporary
/// into a memref.view at its offset: one allocation per call instead of one
/// per temporary, and bytes reused between temporaries that are not live
/// together. (Views made earlier kept the matmul's C tile from being
/// hoisted out of its K loop.) Outputs and dynamically shaped buffers keep
/// their own allocations.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/ArenaPlan.h"
#include "codegen/ABI/BufferAliases.h"
#include "codegen/ABI/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace rlx {
#define GEN_PASS_DEF_RLXPLANWORKSPACE
#define GEN_PASS_DEF_RLXMATERIALIZEWORKSPACE
#include "codegen/ABI/Passes.h.inc"
} // namespace rlx

using namespace mlir;

namespace {

struct Temporary {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
};

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


struct RLXPlanWorkspacePass
    : rlx::impl::RLXPlanWorkspaceBase<RLXPlanWorkspacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t index = 0;
    for (Operation &op : body)
      position[&op] = index++;

    SmallVector<Temporary> temporaries;
    std::vector<rlx::BufferLifetime> lifetimes;
    for (auto alloc : body.getOps<memref::AllocOp>()) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getMemorySpace() || rlx::staticBytes(type) == 0 ||
          !type.getElementType().isIntOrFloat())
        continue;
      // Exactly one dealloc, in the top-level code after the alloc: the
      // buffer is a temporary with a known live range (returned buffers
      // have none).
      memref::DeallocOp dealloc;
      bool simple = true;
      for (Operation *user : alloc->getUsers()) {
        if (auto d = dyn_cast<memref::DeallocOp>(user)) {
          simple &= !dealloc && d->getBlock() == &body;
          dealloc = d;
        } else if (isa<func::ReturnOp>(user)) {
          simple = false;
        }
      }
      if (!simple || !dealloc)
        continue;
      temporaries.push_back({alloc, dealloc});
      lifetimes.push_back({position[alloc], position[dealloc] + 1,
                           rlx::staticBytes(type)});
    }
    if (temporaries.empty())
      return;

    rlx::ArenaPlan plan = rlx::planArena(lifetimes);
    Builder attrs(func.getContext());
    func->setAttr("rlx.workspace_lower_bound",
                  attrs.getI64IntegerAttr(rlx::livenessLowerBound(lifetimes)));
    func->setAttr("rlx.workspace_arena", attrs.getI64IntegerAttr(plan.size));
    for (auto [temporary, offset] : llvm::zip(temporaries, plan.offsets))
      temporary.alloc->setAttr("rlx.arena_offset",
                               attrs.getI64IntegerAttr(offset));
  }
};

struct RLXMaterializeWorkspacePass
    : rlx::impl::RLXMaterializeWorkspaceBase<RLXMaterializeWorkspacePass> {
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
