//===- InlineAllocaScopes.cpp - Scopes around bodies that allocate nothing ===//
///
/// \file
/// convert-scf-to-openmp wraps every parallel loop body in a
/// memref.alloca_scope. Upstream's canonicalization inlines a scope only
/// when nothing directly inside it may allocate on the stack, and it counts
/// any op without memory effects as one that may: an `llvm.call_intrinsic`
/// (the int8 kernel's vpdpbusd) directly in a body kept its scope, and
/// lowering the loops inside a kept scope gives it several blocks, which
/// its verifier refuses. Here a scope whose region holds no memref.alloca
/// (ours never do at this point: allocations are heap buffers, and the
/// staging allocas of vector transfers come later) is inlined whatever
/// else it holds.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUINLINEALLOCASCOPES
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

struct RLXCPUInlineAllocaScopesPass
    : mlir::rlx::impl::RLXCPUInlineAllocaScopesBase<
          RLXCPUInlineAllocaScopesPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation()->walk([&](memref::AllocaScopeOp scope) {
      bool allocates = scope
                           ->walk([](memref::AllocaOp) {
                             return WalkResult::interrupt();
                           })
                           .wasInterrupted();
      if (!allocates && scope.getBodyRegion().hasOneBlock())
        scopes.push_back(scope);
    });
    IRRewriter rewriter(&getContext());
    for (memref::AllocaScopeOp scope : scopes) {
      Block *body = &scope.getBodyRegion().front();
      Operation *terminator = body->getTerminator();
      SmallVector<Value> results(terminator->getOperands());
      rewriter.eraseOp(terminator);
      rewriter.inlineBlockBefore(body, scope);
      rewriter.replaceOp(scope, results);
    }
  }
};

} // namespace
