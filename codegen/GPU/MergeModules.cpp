//===- MergeModules.cpp - All kernels in one device module ----------------===//
///
/// \file
/// `gpu-kernel-outlining` gives every launch its own `gpu.module`, each
/// with a kernel named after the function. Compiled separately, each module
/// costs a full device backend run (a ptxas per chip for CUDA, an LLVM
/// codegen and a link per chip for ROCm) and a record in the artifact. This
/// moves every kernel into one module, `rlx_kernels`, each renamed after
/// the module it came from (unique), and points the launches at it.
///
//===----------------------------------------------------------------------===//

#include "codegen/GPU/Passes.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXGPUMERGEMODULES
#include "codegen/GPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kMergedName = "rlx_kernels";

struct RLXGPUMergeModulesPass
    : mlir::rlx::impl::RLXGPUMergeModulesBase<RLXGPUMergeModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(module.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return;
    if (module.lookupSymbol(kMergedName)) {
      module.emitError("a symbol named '") << kMergedName << "' already exists";
      return signalPassFailure();
    }
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto merged = gpu::GPUModuleOp::create(b, module.getLoc(), kMergedName);
    Block &body = merged.getBodyRegion().front();
    // Old (module, kernel) -> new kernel name.
    llvm::StringMap<std::string> renamed;
    for (gpu::GPUModuleOp old : modules) {
      std::string moduleName = old.getName().str();
      for (Operation &op : llvm::make_early_inc_range(old.getBody()->getOperations())) {
        auto fn = dyn_cast<gpu::GPUFuncOp>(&op);
        if (!fn) {
          op.emitError("GPU codegen: unexpected op in an outlined module");
          return signalPassFailure();
        }
        renamed[moduleName + "::" + fn.getName().str()] = moduleName;
        fn.setName(moduleName);
        fn->moveBefore(&body, body.end());
      }
    }
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = renamed.find((launch.getKernelModuleName().getValue() + "::" +
                              launch.getKernelName().getValue())
                                 .str());
      if (it == renamed.end()) {
        launch.emitError("GPU codegen: launch of an unknown kernel");
        return WalkResult::interrupt();
      }
      launch.setKernelAttr(SymbolRefAttr::get(
          b.getStringAttr(kMergedName),
          {FlatSymbolRefAttr::get(b.getStringAttr(it->second))}));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    for (gpu::GPUModuleOp old : modules)
      old.erase();
  }
};

} // namespace
