//===- CheckedAllocations.cpp - Allocation failures become a status -------===//
///
/// \file
/// The memref lowering runs with generic allocation functions
/// (`_mlir_memref_to_llvm_alloc`, `..._aligned_alloc`, `..._free`); this
/// pass defines them in the artifact. They call the C library and, when
/// it returns null, call the runtime's hook `rlx_artifact_oom_hook` (an
/// exported pointer the runtime sets at load), which unwinds to the
/// runtime's call with an out-of-memory status instead of the artifact
/// dereferencing null. Without a hook they return null as malloc does.
/// Likewise `rlx_check_failed` (rlx-runtime-checks) calls the runtime's
/// `rlx_artifact_error_hook` with the check's message.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/DefineFunctions.h"
#include "codegen/ABI/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCHECKEDALLOCATIONS
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

// The hook slots' names come from rlx/abi.h, spliced into the text.
constexpr const char *kDefinitions = R"mlir(
llvm.mlir.global external @)mlir" RLX_ARTIFACT_OOM_HOOK_SYMBOL R"mlir(() : !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
llvm.func @rlx_checked(%p: !llvm.ptr, %size: i64) -> !llvm.ptr {
  %null = llvm.mlir.zero : !llvm.ptr
  %failed = llvm.icmp "eq" %p, %null : !llvm.ptr
  llvm.cond_br %failed, ^report, ^done
^report:
  %slot = llvm.mlir.addressof @)mlir" RLX_ARTIFACT_OOM_HOOK_SYMBOL R"mlir( : !llvm.ptr
  %hook = llvm.load %slot : !llvm.ptr -> !llvm.ptr
  %noHook = llvm.icmp "eq" %hook, %null : !llvm.ptr
  llvm.cond_br %noHook, ^done, ^call
^call:
  llvm.call %hook(%size) : !llvm.ptr, (i64) -> ()
  llvm.br ^done
^done:
  llvm.return %p : !llvm.ptr
}
llvm.func @_mlir_memref_to_llvm_alloc(%size: i64) -> !llvm.ptr {
  %p = llvm.call @malloc(%size) : (i64) -> !llvm.ptr
  %r = llvm.call @rlx_checked(%p, %size) : (!llvm.ptr, i64) -> !llvm.ptr
  llvm.return %r : !llvm.ptr
}
llvm.func @_mlir_memref_to_llvm_aligned_alloc(%align: i64, %size: i64) -> !llvm.ptr {
  %p = llvm.call @aligned_alloc(%align, %size) : (i64, i64) -> !llvm.ptr
  %r = llvm.call @rlx_checked(%p, %size) : (!llvm.ptr, i64) -> !llvm.ptr
  llvm.return %r : !llvm.ptr
}
llvm.mlir.global external @)mlir" RLX_ARTIFACT_ERROR_HOOK_SYMBOL R"mlir(() : !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.func @abort()
llvm.func @rlx_check_failed(%message: !llvm.ptr) {
  %null = llvm.mlir.zero : !llvm.ptr
  %slot = llvm.mlir.addressof @)mlir" RLX_ARTIFACT_ERROR_HOOK_SYMBOL R"mlir( : !llvm.ptr
  %hook = llvm.load %slot : !llvm.ptr -> !llvm.ptr
  %noHook = llvm.icmp "eq" %hook, %null : !llvm.ptr
  llvm.cond_br %noHook, ^abort, ^call
^call:
  llvm.call %hook(%message) : !llvm.ptr, (!llvm.ptr) -> ()
  llvm.br ^abort
^abort:
  llvm.call @abort() : () -> ()
  llvm.unreachable
}
llvm.func @_mlir_memref_to_llvm_free(%p: !llvm.ptr) {
  llvm.call @free(%p) : (!llvm.ptr) -> ()
  llvm.return
}
)mlir";

struct RLXCheckedAllocationsPass
    : mlir::rlx::impl::RLXCheckedAllocationsBase<RLXCheckedAllocationsPass> {
  void runOnOperation() override {
    if (failed(mlir::rlx::defineFunctions(getOperation(), kDefinitions,
                                    "allocation functions")))
      signalPassFailure();
  }
};

} // namespace
