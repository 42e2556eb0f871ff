// RUN: rlx-opt %s -split-input-file -rlx-define-collective-hooks -verify-diagnostics | FileCheck %s

// The declared call gets a body: the hook slot is loaded and called with
// the element addresses (aligned pointer + offset) of the two buffers.
// CHECK: llvm.mlir.global external @rlx_artifact_collective_hook()
// CHECK-LABEL: llvm.func @rlx_collective_f32(
// CHECK-SAME: %[[KIND:[^:]+]]: i32, %[[DTYPE:[^:]+]]: i32,
// CHECK-SAME: %{{[^:]+}}: !llvm.ptr, %[[INP:[^:]+]]: !llvm.ptr, %[[INO:[^:]+]]: i64
// CHECK: %[[SLOT:.+]] = llvm.mlir.addressof @rlx_artifact_collective_hook
// CHECK: %[[HOOK:.+]] = llvm.load %[[SLOT]]
// CHECK: %[[IN:.+]] = llvm.getelementptr %[[INP]][%[[INO]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[OUT:.+]] = llvm.getelementptr
// CHECK: llvm.call %[[HOOK]](%[[KIND]], %[[DTYPE]], %[[IN]], %[[OUT]],
// CHECK: llvm.call @abort()
llvm.func @rlx_collective_f32(i32, i32, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64)

// -----

// Negative: no collective call, no hook slot.
// CHECK-LABEL: llvm.func @plain
// CHECK-NOT: rlx_artifact_collective_hook
llvm.func @plain() {
  llvm.return
}

// -----

// A call of another shape is an error naming it.
// expected-error @+1 {{expects the collective call 'rlx_collective_i32' to take 14 arguments (kind, dtype, two 1-D memref descriptors, count, arg), it takes 1}}
llvm.func @rlx_collective_i32(i32)
