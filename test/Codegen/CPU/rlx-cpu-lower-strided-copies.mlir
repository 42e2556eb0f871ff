// RUN: rlx-opt %s -split-input-file -rlx-cpu-lower-strided-copies | FileCheck %s

// A copy out of a strided view (a column slice) would call MLIR's
// memrefCopy: it becomes linalg.copy, on the same operands.
// CHECK-LABEL: func @strided_source
// CHECK-SAME: (%[[SRC:.+]]: memref<4x8xf32>, %[[DST:.+]]: memref<4x4xf32>)
// CHECK: %[[VIEW:.+]] = memref.subview %[[SRC]]
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[VIEW]] : memref<4x4xf32, strided<[8, 1]>>) outs(%[[DST]] : memref<4x4xf32>)
func.func @strided_source(%src: memref<4x8xf32>, %dst: memref<4x4xf32>) {
  %view = memref.subview %src[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  memref.copy %view, %dst : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
  return
}

// -----

// A strided target likewise.
// CHECK-LABEL: func @strided_target
// CHECK-SAME: (%[[SRC:.+]]: memref<4xf32>, %[[DST:.+]]: memref<4x2xf32>)
// CHECK: %[[VIEW:.+]] = memref.subview %[[DST]]
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[SRC]] : memref<4xf32>) outs(%[[VIEW]] : memref<4xf32, strided<[2]>>)
func.func @strided_target(%src: memref<4xf32>, %dst: memref<4x2xf32>) {
  %view = memref.subview %dst[0, 0] [4, 1] [1, 1] : memref<4x2xf32> to memref<4xf32, strided<[2]>>
  memref.copy %src, %view : memref<4xf32> to memref<4xf32, strided<[2]>>
  return
}

// -----

// Negative: identity layouts are contiguous; the copy stays (a memcpy).
// CHECK-LABEL: func @contiguous
// CHECK: memref.copy
// CHECK-NOT: linalg.copy
func.func @contiguous(%src: memref<?x8xf32>, %dst: memref<?x8xf32>) {
  memref.copy %src, %dst : memref<?x8xf32> to memref<?x8xf32>
  return
}

// -----

// Negative: a static row-major view with an offset (whole rows) is
// contiguous too, though its layout is not the identity.
// CHECK-LABEL: func @contiguous_rows
// CHECK: memref.copy
// CHECK-NOT: linalg.copy
func.func @contiguous_rows(%src: memref<4x8xf32>, %dst: memref<2x8xf32>) {
  %view = memref.subview %src[2, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  memref.copy %view, %dst : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
  return
}
