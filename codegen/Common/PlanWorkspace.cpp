//===- PlanWorkspace.cpp - One arena for the temporaries of a function ----===//
///
/// \file
/// After deallocations sit at last use, every statically shaped temporary
/// of a function's top-level code has a live range in op order. They are
/// packed into one arena (ArenaPlan.h): rlx-plan-workspace records each
/// temporary's offset (`rlx.arena_offset`) and the arena size, which
/// rlx-materialize-workspace (MaterializeWorkspace.cpp) turns into one
/// allocation per call. Outputs and dynamically shaped buffers keep their
/// own allocations.
///
//===----------------------------------------------------------------------===//

#include "codegen/Common/ArenaPlan.h"
#include "codegen/Common/BufferAliases.h"
#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXPLANWORKSPACE
#include "codegen/Common/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

struct Temporary {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
};

struct RLXPlanWorkspacePass
    : mlir::rlx::impl::RLXPlanWorkspaceBase<RLXPlanWorkspacePass> {
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
    std::vector<mlir::rlx::BufferLifetime> lifetimes;
    for (auto alloc : body.getOps<memref::AllocOp>()) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getMemorySpace() || mlir::rlx::staticBytes(type) == 0 ||
          !type.getElementType().isIntOrFloat())
        continue;
      // Exactly one dealloc, in the top-level code after the alloc: the
      // buffer is a temporary with a known live range (returned buffers
      // have none).
      memref::DeallocOp dealloc;
      bool simple = true;
      // Bookkeeping a host function reads (the deallocation pipeline's
      // ownership flags around loops) stays out of the arena, which is
      // device memory on GPU targets.
      if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
            if (auto cast = dyn_cast<memref::CastOp>(user))
              return llvm::any_of(cast->getUsers(), [](Operation *u) {
                return isa<func::CallOp>(u);
              });
            return isa<func::CallOp>(user);
          }))
        continue;
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
                           mlir::rlx::staticBytes(type)});
    }
    if (temporaries.empty())
      return;

    mlir::rlx::ArenaPlan plan = mlir::rlx::planArena(lifetimes);
    Builder attrs(func.getContext());
    func->setAttr("rlx.workspace_lower_bound",
                  attrs.getI64IntegerAttr(mlir::rlx::livenessLowerBound(lifetimes)));
    func->setAttr("rlx.workspace_arena", attrs.getI64IntegerAttr(plan.size));
    for (auto [temporary, offset] : llvm::zip(temporaries, plan.offsets))
      temporary.alloc->setAttr("rlx.arena_offset",
                               attrs.getI64IntegerAttr(offset));
  }
};

} // namespace
