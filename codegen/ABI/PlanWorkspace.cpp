//===- PlanWorkspace.cpp - One arena for the temporaries of a function ----===//
///
/// \file
/// After deallocations sit at last use, every statically shaped temporary
/// of a function's top-level code has a live range in op order. They are
/// packed into one arena (ArenaPlan.h) allocated once at entry and freed
/// at return; each temporary becomes a memref.view at its offset, and its
/// own alloc and dealloc disappear: one allocation per call instead of one
/// per temporary, and bytes reused between temporaries that are not live
/// together. Outputs (returned buffers) and dynamically shaped buffers keep
/// their own allocations. The arena size and the liveness lower bound are
/// recorded on the function for the manifest and `rlxc --stats`.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/ArenaPlan.h"
#include "codegen/ABI/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace rlx {
#define GEN_PASS_DEF_RLXPLANWORKSPACE
#include "codegen/ABI/Passes.h.inc"
} // namespace rlx

using namespace mlir;

namespace {

struct Temporary {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
};

int64_t staticBytes(MemRefType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
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
          type.getMemorySpace() || staticBytes(type) == 0 ||
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
                           staticBytes(type)});
    }
    if (temporaries.empty())
      return;

    rlx::ArenaPlan plan = rlx::planArena(lifetimes);
    Builder attrs(func.getContext());
    func->setAttr("rlx.workspace_lower_bound",
                  attrs.getI64IntegerAttr(rlx::livenessLowerBound(lifetimes)));
    func->setAttr("rlx.workspace_arena", attrs.getI64IntegerAttr(plan.size));

    OpBuilder b = OpBuilder::atBlockBegin(&body);
    Location loc = func.getLoc();
    auto arenaType = MemRefType::get({plan.size}, b.getI8Type());
    Value arena = memref::AllocOp::create(b, loc, arenaType, ValueRange{},
                                          b.getI64IntegerAttr(64));
    for (auto [temporary, offset] : llvm::zip(temporaries, plan.offsets)) {
      b.setInsertionPoint(temporary.alloc);
      Value shift = arith::ConstantIndexOp::create(b, loc, offset);
      Value view = memref::ViewOp::create(b, temporary.alloc.getLoc(),
                                          temporary.alloc.getType(), arena,
                                          shift, ValueRange{});
      temporary.dealloc.erase();
      temporary.alloc.getResult().replaceAllUsesWith(view);
      temporary.alloc.erase();
    }
    func.walk([&](func::ReturnOp ret) {
      OpBuilder at(ret);
      memref::DeallocOp::create(at, ret.getLoc(), arena);
    });
  }
};

} // namespace
