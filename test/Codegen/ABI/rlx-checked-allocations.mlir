// RUN: rlx-opt %s -rlx-checked-allocations | FileCheck %s

// The lowering's declaration gives way to a definition that checks malloc's
// result and calls the exported hook when it is null.
// CHECK: llvm.mlir.global external @rlx_artifact_oom_hook()
// CHECK-LABEL: llvm.func @rlx_checked
// CHECK: llvm.icmp "eq"
// CHECK: llvm.load
// CHECK: llvm.call %{{.+}}(%{{.+}}) : !llvm.ptr, (i64) -> ()
// CHECK-LABEL: llvm.func @_mlir_memref_to_llvm_alloc(%{{.+}}: i64) -> !llvm.ptr
// CHECK: llvm.call @malloc
// CHECK: llvm.call @rlx_checked
// CHECK-LABEL: llvm.func @_mlir_memref_to_llvm_aligned_alloc
// CHECK: llvm.call @aligned_alloc
// CHECK-LABEL: llvm.func @_mlir_memref_to_llvm_free
// CHECK: llvm.call @free
module {
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  llvm.func @user(%n: i64) -> !llvm.ptr {
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    llvm.return %p : !llvm.ptr
  }
}
