//===- CheckManifestTarget.cpp - Codegen for the manifest's target -------===//
///
/// \file
/// The phase pipelines take their target as an option; a module bufferized
/// for one target and code-generated for another would ship a manifest that
/// lies about its code. This pass, first in codegen, compares the two.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/CPUTarget.h"
#include "codegen/ABI/Passes.h"
#include "rlx/abi.h"

#include "llvm/Support/JSON.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCHECKMANIFESTTARGET
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

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
    if (*recorded != target) {
      module.emitError() << "the module was prepared for target '" << *recorded
                         << "' (its manifest) but codegen runs "
                         << "for '" << target
                         << "'; run the codegen phase with {target="
                         << *recorded << "}";
      return signalPassFailure();
    }
    checkCPU(module, *object);
  }

  /// The manifest's CPU and required features are those codegen compiles
  /// for, else the runtime would check the wrong ones.
  void checkCPU(ModuleOp module, const llvm::json::Object &manifest) {
    std::optional<llvm::StringRef> recordedCPU =
        manifest.getString(RLX_MANIFEST_CPU);
    if (!recordedCPU)
      return;
    std::string error;
    FailureOr<CPUTarget> cpuTarget =
        resolveCPUTarget(cpu, llvm::to_vector(cpuFeatures), error);
    if (failed(cpuTarget)) {
      module.emitError(error);
      return signalPassFailure();
    }
    std::vector<std::string> recordedFeatures;
    if (const llvm::json::Array *features =
            manifest.getArray(RLX_MANIFEST_CPU_FEATURES))
      for (const llvm::json::Value &feature : *features)
        if (std::optional<llvm::StringRef> name = feature.getAsString())
          recordedFeatures.push_back(name->str());
    if (*recordedCPU == cpuTarget->cpu &&
        recordedFeatures == cpuTarget->required)
      return;
    module.emitError() << "the module was prepared for CPU '" << *recordedCPU
                       << "' (its manifest) but codegen compiles for '"
                       << cpuTarget->cpu << "'"
                       << (*recordedCPU == cpuTarget->cpu
                               ? " with other features"
                               : "")
                       << "; run the codegen phase with the bufferize "
                       << "phase's {cpu=...} and {cpu-features=...}";
    signalPassFailure();
  }
};

} // namespace
