// RUN: rlx-opt %s -split-input-file -rlx-expand-vmap | FileCheck %s

// vmap: the callee rebuilt with batching rules; the unmapped weight is
// passed whole, the batch moves to out_axes.
// CHECK-LABEL: func @vmap
// CHECK-SAME: (%[[XS:.+]]: tensor<5x4xf32>, %[[W:.+]]: tensor<4x3xf32>)
// CHECK: %[[X3:.+]] = rlx.reshape %[[XS]] : (tensor<5x4xf32>) -> tensor<5x1x4xf32>
// CHECK: %[[Y3:.+]] = rlx.matmul %[[X3]], %[[W]] : (tensor<5x1x4xf32>, tensor<4x3xf32>) -> tensor<5x1x3xf32>
// CHECK: %[[Y:.+]] = rlx.reshape %[[Y3]]
// CHECK: %[[T:.+]] = rlx.transpose %[[Y]] {permutation = array<i64: 1, 0>}
// CHECK: return %[[T]] : tensor<3x5xf32>
// CHECK-NOT: rlx.vmap
func.func private @f(%x: tensor<4xf32>, %w: tensor<4x3xf32>) -> tensor<3xf32> {
  %x2 = rlx.reshape %x : (tensor<4xf32>) -> tensor<1x4xf32>
  %y2 = rlx.matmul %x2, %w : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
  %y = rlx.reshape %y2 : (tensor<1x3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap(%xs: tensor<5x4xf32>, %w: tensor<4x3xf32>) -> tensor<3x5xf32> {
  %ys = rlx.vmap @f(%xs, %w) {in_axes = [0, unit], out_axes = array<i64: 1>} : (tensor<5x4xf32>, tensor<4x3xf32>) -> tensor<3x5xf32>
  return %ys : tensor<3x5xf32>
}

// -----

// Negative: a vmap whose callee holds a grad is not ready; the grad is not
// this pass's kind.
// CHECK-LABEL: func @not_ready
// CHECK: rlx.vmap @df
// CHECK-LABEL: func private @df
// CHECK: rlx.grad @f
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @not_ready(%xs: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %g = rlx.vmap @df(%xs) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}
func.func private @df(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = rlx.grad @f(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// A collective under vmap maps over a local dim: the gathered dim moves
// past the batch dim.
// CHECK-LABEL: func @vmap_all_gather
// CHECK-SAME: (%[[XS:.+]]: tensor<5x2x3xf32>)
// CHECK: %[[G:.+]] = rlx.all_gather %[[XS]] {axis = "i", axis_size = 2 : i64, dim = 2 : i64} : (tensor<5x2x3xf32>) -> tensor<5x2x6xf32>
// CHECK: return %[[G]]
func.func private @gather_cols(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %a = rlx.all_gather %x {axis = "i", dim = 1 : i64, axis_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %a : tensor<2x6xf32>
}
func.func @vmap_all_gather(%xs: tensor<5x2x3xf32>) -> tensor<5x2x6xf32> {
  %ys = rlx.vmap @gather_cols(%xs) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<5x2x3xf32>) -> tensor<5x2x6xf32>
  return %ys : tensor<5x2x6xf32>
}
