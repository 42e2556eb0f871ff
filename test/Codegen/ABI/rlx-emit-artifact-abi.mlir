// RUN: rlx-opt %s -split-input-file -rlx-emit-artifact-abi -verify-diagnostics | FileCheck %s

// The ABI version, the manifest text and a packed entry wrapper: the output
// pointer (last slot) goes first to the C interface, then inputs and params.
// CHECK: llvm.func @rlx_artifact_abi_version() -> i32
// CHECK: llvm.mlir.constant(4 : i32)
// CHECK: llvm.mlir.global internal constant @rlx_manifest_text
// CHECK: llvm.func @rlx_artifact_manifest() -> !llvm.ptr
// CHECK: llvm.mlir.addressof @rlx_manifest_text
// CHECK-LABEL: llvm.func @rlx_entry_f(
// CHECK-SAME: %[[ARGS:.+]]: !llvm.ptr) -> i32
// CHECK: %[[S2:.+]] = llvm.getelementptr %[[ARGS]][2]
// CHECK: %[[OUT:.+]] = llvm.load %[[S2]]
// CHECK: %[[S0:.+]] = llvm.getelementptr %[[ARGS]][0]
// CHECK: %[[IN:.+]] = llvm.load %[[S0]]
// CHECK: %[[S1:.+]] = llvm.getelementptr %[[ARGS]][1]
// CHECK: %[[P:.+]] = llvm.load %[[S1]]
// CHECK: llvm.call @_mlir_ciface_rlx_impl_f(%[[OUT]], %[[IN]], %[[P]])
module attributes {rlx.manifest = "{\22abi_version\22:4,\22entry_points\22:[{\22inputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22x\22,\22shape\22:[3]}],\22name\22:\22f\22,\22outputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22out0\22,\22shape\22:[3]}],\22params\22:[{\22dtype\22:\22f32\22,\22name\22:\22w\22,\22shape\22:[3]}],\22symbol\22:\22rlx_entry_f\22,\22workspace_bytes\22:0}],\22params\22:[]}"} {
  llvm.func @_mlir_ciface_rlx_impl_f(%out: !llvm.ptr, %x: !llvm.ptr, %w: !llvm.ptr) {
    llvm.return
  }
}

// -----

// Negative: no manifest.
// expected-error @+1 {{expects an rlx.manifest attribute: run rlx-build-manifest first}}
module {
}

// -----

// Negative: an entry point without its C interface.
// expected-error @+1 {{expects the C interface of entry point 'g'}}
module attributes {rlx.manifest = "{\22entry_points\22:[{\22inputs\22:[],\22name\22:\22g\22,\22outputs\22:[],\22params\22:[],\22symbol\22:\22rlx_entry_g\22}]}"} {
}
