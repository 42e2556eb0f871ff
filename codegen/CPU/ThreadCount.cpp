//===- ThreadCount.cpp - Parallel regions read the runtime's thread count -===//
///
/// \file
/// Every parallel region of an artifact reads its thread count from the
/// exported global `rlx_artifact_num_threads`, which the runtime sets before
/// every call (rlx_set_num_threads), so one artifact follows the session's
/// setting without being recompiled.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"
#include "rlx/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUTHREADCOUNT
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// Gives every omp.parallel the thread count in `@rlx_artifact_num_threads`
/// (at least 1).
struct RLXCPUThreadCountPass
    : mlir::rlx::impl::RLXCPUThreadCountBase<RLXCPUThreadCountPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<omp::ParallelOp> regions;
    module.walk([&](omp::ParallelOp op) { regions.push_back(op); });
    if (regions.empty())
      return;
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    Type i32 = b.getI32Type();
    StringRef name = RLX_ARTIFACT_NUM_THREADS_SYMBOL;
    if (!module.lookupSymbol(name))
      LLVM::GlobalOp::create(b, module.getLoc(), i32, /*isConstant=*/false,
                             LLVM::Linkage::External, name,
                             b.getI32IntegerAttr(0));
    for (omp::ParallelOp region : regions) {
      b.setInsertionPoint(region);
      Location loc = region.getLoc();
      Value address = LLVM::AddressOfOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
      Value requested = LLVM::LoadOp::create(b, loc, i32, address);
      Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
      Value count = arith::MaxSIOp::create(b, loc, requested, one);
      region.getNumThreadsMutable().assign(count);
    }
  }
};

} // namespace
