// RUN: rlx-opt %s -split-input-file -rlx-lower-dynamic-expand-shapes | FileCheck %s

// Two dynamic dims from one: sizes from output_shape, row-major strides.
// CHECK-LABEL: func @two_dynamic
// CHECK-SAME: (%[[SRC:.+]]: memref<?x2xf64>, %[[D0:.+]]: index, %[[D1:.+]]: index)
// CHECK: %[[S0:.+]] = arith.muli %c2, %[[D1]]
// CHECK: memref.reinterpret_cast %[[SRC]] to offset: [0], sizes: [%[[D0]], %[[D1]], 2], strides: [%[[S0]], 2, 1]
// CHECK-NOT: memref.expand_shape
func.func @two_dynamic(%a: memref<?x2xf64>, %d0: index, %d1: index) -> memref<?x?x2xf64> {
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%d0, %d1, 2] : memref<?x2xf64> into memref<?x?x2xf64>
  return %e : memref<?x?x2xf64>
}

// -----

// One dynamic dim per group lowers upstream: left alone.
// CHECK-LABEL: func @one_dynamic
// CHECK: memref.expand_shape
func.func @one_dynamic(%a: memref<?xf32>, %d0: index) -> memref<?x4xf32> {
  %e = memref.expand_shape %a [[0, 1]] output_shape [%d0, 4] : memref<?xf32> into memref<?x4xf32>
  return %e : memref<?x4xf32>
}
