//===- DeviceHooks.cpp - Device memory and launches through the runtime ---===//
///
/// \file
/// A GPU artifact does not link a driver: every device action goes through
/// a pointer the runtime sets at load (docs/abi.md). This pass defines, in
/// the LLVM dialect, the allocation functions of the memref lowering (every
/// buffer of a GPU entry point is device memory), `rlx_device_upload`,
/// `rlx_device_download` and `rlx_device_launch` as calls through those
/// pointers. A hook that fails records it on the call and returns;
/// rlx-return-on-failure asks the call's state after each of these and
/// leaves the entry code. A null hook (the artifact loaded by something
/// other than the runtime) aborts.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/DefineFunctions.h"
#include "codegen/GPU/Passes.h"
#include "rlx/abi.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXGPUDEVICEHOOKS
#include "codegen/GPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

// The hook slots' names come from rlx/abi.h, spliced into the text.
constexpr const char *kDefinitions = R"mlir(
llvm.mlir.global external @)mlir" RLX_ARTIFACT_DEVICE_ALLOC_HOOK_SYMBOL R"mlir(() : !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.mlir.global external @)mlir" RLX_ARTIFACT_DEVICE_FREE_HOOK_SYMBOL R"mlir(() : !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.mlir.global external @)mlir" RLX_ARTIFACT_DEVICE_UPLOAD_HOOK_SYMBOL R"mlir(() : !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.mlir.global external @)mlir" RLX_ARTIFACT_DEVICE_LAUNCH_HOOK_SYMBOL R"mlir(() : !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.mlir.global external @)mlir" RLX_ARTIFACT_DEVICE_DOWNLOAD_HOOK_SYMBOL R"mlir(() : !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.func @abort()
llvm.func @rlx_device_hook(%slot: !llvm.ptr) -> !llvm.ptr {
  %null = llvm.mlir.zero : !llvm.ptr
  %hook = llvm.load %slot : !llvm.ptr -> !llvm.ptr
  %missing = llvm.icmp "eq" %hook, %null : !llvm.ptr
  llvm.cond_br %missing, ^abort, ^done
^abort:
  llvm.call @abort() : () -> ()
  llvm.unreachable
^done:
  llvm.return %hook : !llvm.ptr
}
llvm.func @_mlir_memref_to_llvm_alloc(%size: i64) -> !llvm.ptr {
  %slot = llvm.mlir.addressof @)mlir" RLX_ARTIFACT_DEVICE_ALLOC_HOOK_SYMBOL R"mlir( : !llvm.ptr
  %hook = llvm.call @rlx_device_hook(%slot) : (!llvm.ptr) -> !llvm.ptr
  %p = llvm.call %hook(%size) : !llvm.ptr, (i64) -> !llvm.ptr
  llvm.return %p : !llvm.ptr
}
llvm.func @_mlir_memref_to_llvm_aligned_alloc(%align: i64, %size: i64) -> !llvm.ptr {
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%size) : (i64) -> !llvm.ptr
  llvm.return %p : !llvm.ptr
}
llvm.func @_mlir_memref_to_llvm_free(%p: !llvm.ptr) {
  %slot = llvm.mlir.addressof @)mlir" RLX_ARTIFACT_DEVICE_FREE_HOOK_SYMBOL R"mlir( : !llvm.ptr
  %hook = llvm.call @rlx_device_hook(%slot) : (!llvm.ptr) -> !llvm.ptr
  llvm.call %hook(%p) : !llvm.ptr, (!llvm.ptr) -> ()
  llvm.return
}
llvm.func @rlx_device_upload(%dst: i64, %src: i64, %bytes: i64) {
  %slot = llvm.mlir.addressof @)mlir" RLX_ARTIFACT_DEVICE_UPLOAD_HOOK_SYMBOL R"mlir( : !llvm.ptr
  %hook = llvm.call @rlx_device_hook(%slot) : (!llvm.ptr) -> !llvm.ptr
  %d = llvm.inttoptr %dst : i64 to !llvm.ptr
  %s = llvm.inttoptr %src : i64 to !llvm.ptr
  llvm.call %hook(%d, %s, %bytes) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, i64) -> ()
  llvm.return
}
llvm.func @rlx_device_download(%dst: i64, %src: i64, %bytes: i64) {
  %slot = llvm.mlir.addressof @)mlir" RLX_ARTIFACT_DEVICE_DOWNLOAD_HOOK_SYMBOL R"mlir( : !llvm.ptr
  %hook = llvm.call @rlx_device_hook(%slot) : (!llvm.ptr) -> !llvm.ptr
  %d = llvm.inttoptr %dst : i64 to !llvm.ptr
  %s = llvm.inttoptr %src : i64 to !llvm.ptr
  llvm.call %hook(%d, %s, %bytes) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, i64) -> ()
  llvm.return
}
llvm.func @rlx_device_launch(%module: i64, %kernel: i64, %words: i64, %count: i64) {
  %slot = llvm.mlir.addressof @)mlir" RLX_ARTIFACT_DEVICE_LAUNCH_HOOK_SYMBOL R"mlir( : !llvm.ptr
  %hook = llvm.call @rlx_device_hook(%slot) : (!llvm.ptr) -> !llvm.ptr
  %m = llvm.inttoptr %module : i64 to !llvm.ptr
  %k = llvm.inttoptr %kernel : i64 to !llvm.ptr
  %grid = llvm.inttoptr %words : i64 to !llvm.ptr
  %block = llvm.getelementptr %grid[3] : (!llvm.ptr) -> !llvm.ptr, i64
  %args = llvm.getelementptr %grid[6] : (!llvm.ptr) -> !llvm.ptr, i64
  llvm.call %hook(%m, %k, %grid, %block, %count, %args) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
  llvm.return
}
)mlir";

/// Runs before rlx-return-on-failure, which leaves these allocation
/// functions as they are (host-allocations=false).
struct RLXGPUDeviceHooksPass
    : mlir::rlx::impl::RLXGPUDeviceHooksBase<RLXGPUDeviceHooksPass> {
  void runOnOperation() override {
    if (failed(mlir::rlx::defineFunctions(getOperation(), kDefinitions,
                                    "device hook functions")))
      signalPassFailure();
  }
};

} // namespace
