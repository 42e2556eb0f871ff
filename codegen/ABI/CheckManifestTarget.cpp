//===- CheckManifestTarget.cpp - Codegen for the manifest's target -------===//
///
/// \file
/// The phase pipelines take their target as an option; a module bufferized
/// for one target and code-generated for another would ship a manifest that
/// lies about its code. This pass, first in codegen, compares the two.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/Passes.h"
#include "rlx/abi.h"

#include "llvm/Support/JSON.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCHECKMANIFESTTARGET
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

struct RLXCheckManifestTargetPass
    : mlir::rlx::impl::RLXCheckManifestTargetBase<RLXCheckManifestTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto text = module->getAttrOfType<StringAttr>("rlx.manifest");
    if (!text)
      return;
    llvm::Expected<llvm::json::Value> manifest =
        llvm::json::parse(text.getValue());
    if (!manifest) {
      llvm::consumeError(manifest.takeError());
      module.emitError("rlx.manifest is not valid JSON");
      return signalPassFailure();
    }
    const llvm::json::Object *object = manifest->getAsObject();
    std::optional<llvm::StringRef> recorded =
        object ? object->getString(RLX_MANIFEST_TARGET) : std::nullopt;
    if (!recorded) {
      module.emitError("rlx.manifest records no target");
      return signalPassFailure();
    }
    if (*recorded == target)
      return;
    module.emitError() << "the module was prepared for target '" << *recorded
                       << "' (its manifest) but codegen runs for '" << target
                       << "'; run the codegen phase with {target="
                       << *recorded << "}";
    signalPassFailure();
  }
};

} // namespace
