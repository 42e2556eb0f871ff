// RUN: rlx-opt %s -rlx-accumulate-in-f32 | FileCheck %s

// CHECK-LABEL: func @bf16_matmul_and_sum
// CHECK-DAG:   %[[X:.+]] = rlx.cast %arg0 : tensor<?x64xbf16> -> tensor<?x64xf32>
// CHECK-DAG:   %[[W:.+]] = rlx.cast %arg1 : tensor<64x32xbf16> -> tensor<64x32xf32>
// CHECK:       %[[P:.+]] = rlx.matmul %[[X]], %[[W]] : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
// CHECK:       %[[PN:.+]] = rlx.cast %[[P]] : tensor<?x32xf32> -> tensor<?x32xbf16>
// CHECK:       %[[E:.+]] = rlx.exp %[[PN]] : tensor<?x32xbf16>
// CHECK:       %[[EW:.+]] = rlx.cast %[[E]] : tensor<?x32xbf16> -> tensor<?x32xf32>
// CHECK:       %[[S:.+]] = rlx.sum %[[EW]] {{.*}} -> tensor<?xf32>
// CHECK:       rlx.cast %[[S]] : tensor<?xf32> -> tensor<?xbf16>
func.func @bf16_matmul_and_sum(%x: tensor<?x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<?xbf16> {
  %y = rlx.matmul %x, %w : (tensor<?x64xbf16>, tensor<64x32xbf16>) -> tensor<?x32xbf16>
  %e = rlx.exp %y : tensor<?x32xbf16>
  %s = rlx.sum %e {axes = array<i64: 1>} : (tensor<?x32xbf16>) -> tensor<?xbf16>
  return %s : tensor<?xbf16>
}

// f32 and f64 ops, and 16-bit ops that do not accumulate, stay.
// CHECK-LABEL: func @untouched
// CHECK-NOT:   rlx.cast
// CHECK:       rlx.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x2xf32>)
// CHECK:       rlx.max %arg2
func.func @untouched(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %h: tensor<4x8xf16>) -> (tensor<4x2xf32>, tensor<4xf16>) {
  %p = rlx.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %m = rlx.max %h {axes = array<i64: 1>} : (tensor<4x8xf16>) -> tensor<4xf16>
  return %p, %m : tensor<4x2xf32>, tensor<4xf16>
}
