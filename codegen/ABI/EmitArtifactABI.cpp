//===- EmitArtifactABI.cpp - Exported ABI functions in LLVM dialect -------===//
///
/// \file
/// Emits what the runtime calls (docs/abi.md): the ABI version, the manifest
/// text, and one `rlx_entry_<name>(void **args)` per entry point, which the
/// runtime can call without knowing the arity, unpacking the array into the
/// `_mlir_ciface_<name>` call.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/JSON.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXEMITARTIFACTABI
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

struct RLXEmitArtifactABIPass
    : mlir::rlx::impl::RLXEmitArtifactABIBase<RLXEmitArtifactABIPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto manifestAttr = module->getAttrOfType<StringAttr>("rlx.manifest");
    if (!manifestAttr) {
      module.emitError("expects an rlx.manifest attribute: run "
                       "rlx-build-manifest first");
      return signalPassFailure();
    }
    llvm::Expected<llvm::json::Value> manifest =
        llvm::json::parse(manifestAttr.getValue());
    if (!manifest) {
      module.emitError("expects a JSON rlx.manifest: ")
          << llvm::toString(manifest.takeError());
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    Location loc = module.getLoc();
    auto i32 = IntegerType::get(ctx, 32);
    auto ptr = LLVM::LLVMPointerType::get(ctx);

    // uint32_t rlx_artifact_abi_version(void)
    auto versionFn =
        LLVM::LLVMFuncOp::create(b, loc, RLX_ARTIFACT_ABI_VERSION_SYMBOL,
                                 LLVM::LLVMFunctionType::get(i32, {}));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(versionFn.addEntryBlock(b));
      Value v = LLVM::ConstantOp::create(b, loc, i32, kArtifactABIVersion);
      LLVM::ReturnOp::create(b, loc, v);
    }

    // const char *rlx_artifact_manifest(void)
    std::string text = manifestAttr.getValue().str();
    text.push_back('\0');
    auto arrayType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8),
                                              text.size());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, "rlx_manifest_text",
                           b.getStringAttr(text));
    auto manifestFn =
        LLVM::LLVMFuncOp::create(b, loc, RLX_ARTIFACT_MANIFEST_SYMBOL,
                                 LLVM::LLVMFunctionType::get(ptr, {}));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(manifestFn.addEntryBlock(b));
      Value addr =
          LLVM::AddressOfOp::create(b, loc, ptr, "rlx_manifest_text");
      LLVM::ReturnOp::create(b, loc, addr);
    }

    const llvm::json::Array *entries =
        manifest->getAsObject()->getArray(RLX_MANIFEST_ENTRY_POINTS);
    for (const llvm::json::Value &e : *entries) {
      const llvm::json::Object *entry = e.getAsObject();
      std::string name = entry->getString(RLX_MANIFEST_ENTRY_NAME)->str();
      size_t numArgs = entry->getArray(RLX_MANIFEST_ENTRY_INPUTS)->size() +
                       entry->getArray(RLX_MANIFEST_ENTRY_PARAMS)->size();
      bool hasOutputs = !entry->getArray(RLX_MANIFEST_ENTRY_OUTPUTS)->empty();
      auto target = module.lookupSymbol<LLVM::LLVMFuncOp>(
          "_mlir_ciface_" + implSymbolName(name));
      if (!target) {
        module.emitError("expects the C interface of entry point '")
            << name << "'";
        return signalPassFailure();
      }
      auto wrapper = LLVM::LLVMFuncOp::create(
          b, loc, entry->getString(RLX_MANIFEST_ENTRY_SYMBOL)->str(),
          LLVM::LLVMFunctionType::get(i32, {ptr}));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(wrapper.addEntryBlock(b));
      Value args = wrapper.getArgument(0);
      auto load = [&](size_t i) -> Value {
        Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, args,
                                         ArrayRef<LLVM::GEPArg>{(int32_t)i});
        return LLVM::LoadOp::create(b, loc, ptr, slot);
      };
      SmallVector<Value> operands;
      if (hasOutputs)
        operands.push_back(load(numArgs));
      for (size_t i = 0; i < numArgs; ++i)
        operands.push_back(load(i));
      LLVM::CallOp::create(b, loc, target, operands);
      Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
      LLVM::ReturnOp::create(b, loc, zero);
    }
  }
};

} // namespace
