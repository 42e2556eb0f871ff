// RUN: rlx-opt %s -split-input-file -rlx-cpu-thread-count | FileCheck %s

// Every omp.parallel reads its thread count from the exported global when
// it starts: max(rlx_artifact_num_threads, 1).
// CHECK-LABEL: module
// CHECK: llvm.mlir.global external @rlx_artifact_num_threads(0 : i32) {addr_space = 0 : i32} : i32
// CHECK-LABEL: func @two_regions
// CHECK: %[[ADDR:.+]] = llvm.mlir.addressof @rlx_artifact_num_threads : !llvm.ptr
// CHECK: %[[REQ:.+]] = llvm.load %[[ADDR]] : !llvm.ptr -> i32
// CHECK: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK: %[[N:.+]] = arith.maxsi %[[REQ]], %[[ONE]] : i32
// CHECK: omp.parallel num_threads(%[[N]] : i32)
// CHECK: %[[ADDR2:.+]] = llvm.mlir.addressof @rlx_artifact_num_threads
// CHECK: %[[REQ2:.+]] = llvm.load %[[ADDR2]]
// CHECK: %[[N2:.+]] = arith.maxsi %[[REQ2]], %{{.+}} : i32
// CHECK: omp.parallel num_threads(%[[N2]] : i32)
// CHECK-NOT: llvm.mlir.global
func.func @two_regions() {
  omp.parallel {
    omp.terminator
  }
  omp.parallel {
    omp.terminator
  }
  return
}

// -----

// Negative: without parallel regions nothing is declared.
// CHECK-LABEL: module
// CHECK-NOT: rlx_artifact_num_threads
// CHECK-LABEL: func @serial
func.func @serial() {
  return
}

// -----

// A global already declared is reused, not declared twice.
// CHECK-LABEL: module
// CHECK: llvm.mlir.global external @rlx_artifact_num_threads(0 : i32)
// CHECK-NOT: llvm.mlir.global
// CHECK-LABEL: func @declared
// CHECK: llvm.mlir.addressof @rlx_artifact_num_threads
// CHECK: omp.parallel num_threads(
llvm.mlir.global external @rlx_artifact_num_threads(0 : i32) : i32
func.func @declared() {
  omp.parallel {
    omp.terminator
  }
  return
}
