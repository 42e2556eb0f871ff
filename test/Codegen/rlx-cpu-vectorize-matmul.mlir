// RUN: rlx-opt %s -split-input-file -rlx-cpu-vectorize-matmul | FileCheck %s

// A static matmul becomes register tiles: m and n loops outside, a k loop
// carrying the C tile in vector registers, outer products inside (not
// scalar loops), with C read once before and written once after the k loop.
// CHECK-LABEL: func @matmul_static
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.transfer_read
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (vector<8x32xf32>)
// CHECK: vector.broadcast {{.*}} : f32 to vector<32xf32>
// CHECK: vector.extract %[[ACC]][0]
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.yield
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.matmul
func.func @matmul_static(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A dynamic M is vectorized with masks at the partial tile.
// CHECK-LABEL: func @matmul_dynamic
// CHECK: affine.min
// CHECK: vector.transfer_read
// CHECK-NOT: linalg.matmul
func.func @matmul_dynamic(%a: memref<?x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x64xf32>) outs(%c : memref<?x64xf32>)
  return
}

// -----

// Negative: other linalg ops are untouched.
// CHECK-LABEL: func @no_matmul
// CHECK: linalg.fill
func.func @no_matmul(%c: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<4xf32>)
  return
}
