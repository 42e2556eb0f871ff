//===- DefineCollectiveHooks.cpp - Collective calls reach the runtime -----===//
///
/// \file
/// rlx-lower-collectives declares `rlx_collective_<type>`; after lowering
/// to LLVM each takes (kind, dtype, then the in and out memrefs' descriptor
/// fields, count, arg). This defines them in the artifact: the element
/// addresses of the two buffers and the rest go to the runtime through
/// the exported slot `rlx_artifact_collective_hook`. A failure is recorded
/// on the call; rlx-return-on-failure asks the call's state after each
/// collective and leaves the entry code.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/DefineFunctions.h"
#include "codegen/ABI/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXDEFINECOLLECTIVEHOOKS
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

constexpr const char *kSlot = R"mlir(
llvm.mlir.global external @)mlir" RLX_ARTIFACT_COLLECTIVE_HOOK_SYMBOL R"mlir(() : !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.func @abort()
)mlir";

/// The definition of `name` for element type `element` (LLVM's spelling).
std::string definition(StringRef name, StringRef element) {
  std::string text = R"mlir(
llvm.func @NAME(%kind: i32, %dtype: i32,
    %inAllocated: !llvm.ptr, %inAligned: !llvm.ptr, %inOffset: i64, %inSize: i64, %inStride: i64,
    %outAllocated: !llvm.ptr, %outAligned: !llvm.ptr, %outOffset: i64, %outSize: i64, %outStride: i64,
    %count: i64, %arg: i64) {
  %slot = llvm.mlir.addressof @)mlir" RLX_ARTIFACT_COLLECTIVE_HOOK_SYMBOL R"mlir( : !llvm.ptr
  %hook = llvm.load %slot : !llvm.ptr -> !llvm.ptr
  %null = llvm.mlir.zero : !llvm.ptr
  %none = llvm.icmp "eq" %hook, %null : !llvm.ptr
  llvm.cond_br %none, ^abort, ^call
^call:
  %in = llvm.getelementptr %inAligned[%inOffset] : (!llvm.ptr, i64) -> !llvm.ptr, ELEMENT
  %out = llvm.getelementptr %outAligned[%outOffset] : (!llvm.ptr, i64) -> !llvm.ptr, ELEMENT
  llvm.call %hook(%kind, %dtype, %in, %out, %count, %arg) : !llvm.ptr, (i32, i32, !llvm.ptr, !llvm.ptr, i64, i64) -> ()
  llvm.return
^abort:
  llvm.call @abort() : () -> ()
  llvm.unreachable
}
)mlir";
  auto replace = [&](StringRef from, StringRef to) {
    for (size_t at = text.find(from.str()); at != std::string::npos;
         at = text.find(from.str(), at + to.size()))
      text.replace(at, from.size(), to.str());
  };
  replace("NAME", name);
  replace("ELEMENT", element);
  return text;
}

struct RLXDefineCollectiveHooksPass
    : mlir::rlx::impl::RLXDefineCollectiveHooksBase<
          RLXDefineCollectiveHooksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string text;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
      StringRef name = fn.getName();
      if (!name.starts_with("rlx_collective_") || !fn.isExternal())
        continue;
      if (fn.getNumArguments() != 14) {
        fn.emitError("expects the collective call '")
            << name << "' to take 14 arguments (kind, dtype, two 1-D "
            << "memref descriptors, count, arg), it takes "
            << fn.getNumArguments();
        return signalPassFailure();
      }
      StringRef suffix = name.drop_front(strlen("rlx_collective_"));
      // bf16 and f16 are LLVM's bfloat and half.
      StringRef element = suffix == "bf16"  ? "bf16"
                          : suffix == "f16" ? "f16"
                                            : suffix;
      text += definition(name, element);
    }
    if (text.empty())
      return;
    if (failed(mlir::rlx::defineFunctions(module, kSlot + text,
                                          "collective calls")))
      signalPassFailure();
  }
};

} // namespace
