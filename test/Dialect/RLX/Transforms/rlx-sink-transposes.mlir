// RUN: rlx-opt %s -split-input-file -rlx-sink-transposes | FileCheck %s

// An NCHW layer around an NHWC convolution: the bias add and the relu move
// below the transpose back to NCHW, which then meets the next layer's
// transpose to NHWC and folds. The bias is permuted instead (4 elements).
// CHECK-LABEL: func @layer
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x5x5xf32>, %[[W:.+]]: tensor<1x1x4x4xf32>, %[[B:.+]]: tensor<4x1x1xf32>)
// CHECK: %[[IN:.+]] = rlx.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C:.+]] = rlx.conv2d %[[IN]], %[[W]]
// CHECK: %[[B4:.+]] = rlx.reshape %[[B]] : (tensor<4x1x1xf32>) -> tensor<1x4x1x1xf32>
// CHECK: %[[BT:.+]] = rlx.transpose %[[B4]] {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x1x1xf32>) -> tensor<1x1x1x4xf32>
// CHECK: %[[A:.+]] = rlx.add %[[C]], %[[BT]] : (tensor<1x5x5x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x5x5x4xf32>
// CHECK: %[[R:.+]] = rlx.relu %[[A]] : tensor<1x5x5x4xf32>
// CHECK: %[[C2:.+]] = rlx.conv2d %[[R]], %[[W]]
// CHECK: %[[OUT:.+]] = rlx.transpose %[[C2]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[OUT]]
func.func @layer(%x: tensor<1x4x5x5xf32>, %w: tensor<1x1x4x4xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x5x5xf32> {
  %0 = rlx.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x5x5xf32>) -> tensor<1x5x5x4xf32>
  %1 = rlx.conv2d %0, %w : (tensor<1x5x5x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x5x5x4xf32>
  %2 = rlx.transpose %1 {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x4xf32>) -> tensor<1x4x5x5xf32>
  %3 = rlx.add %2, %b : (tensor<1x4x5x5xf32>, tensor<4x1x1xf32>) -> tensor<1x4x5x5xf32>
  %4 = rlx.relu %3 : tensor<1x4x5x5xf32>
  %5 = rlx.transpose %4 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x5x5xf32>) -> tensor<1x5x5x4xf32>
  %6 = rlx.conv2d %5, %w : (tensor<1x5x5x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x5x5x4xf32>
  %7 = rlx.transpose %6 {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x4xf32>) -> tensor<1x4x5x5xf32>
  return %7 : tensor<1x4x5x5xf32>
}

// -----

// Both operands in the other layout (a residual add): one transpose after.
// A full-size operand in the caller's layout stays: permuting it would add
// a copy. A sum of a transpose sums its input, here with nothing left to
// permute.
// CHECK-LABEL: func @residual
// CHECK: %[[S:.+]] = rlx.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[T:.+]] = rlx.transpose %[[S]] {permutation = array<i64: 1, 0>}
// CHECK: rlx.mul %[[T]], %arg2 : (tensor<3x2xf32>, tensor<3x2xf32>)
// CHECK: %[[R:.+]] = rlx.sum %arg0 {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK: return %{{.+}}, %[[R]]
func.func @residual(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3xf32>) {
  %ta = rlx.transpose %a {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %tb = rlx.transpose %b {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = rlx.add %ta, %tb : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %m = rlx.mul %s, %c : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %ta2 = rlx.transpose %a {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = rlx.sum %ta2 {axes = array<i64: 1>} : (tensor<3x2xf32>) -> tensor<3xf32>
  return %m, %r : tensor<3x2xf32>, tensor<3xf32>
}

// -----

// A global average pool of an NCHW view of an NHWC feature map: the mean
// runs over NHWC's H and W, and only the pooled 1x1x1xC moves.
// CHECK-LABEL: func @global_pool
// CHECK: %[[M:.+]] = rlx.mean %arg0 {axes = array<i64: 1, 2>, keepdims = true} : (tensor<1x7x7x8xf32>) -> tensor<1x1x1x8xf32>
// CHECK: %[[T:.+]] = rlx.transpose %[[M]] {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x1x1x8xf32>) -> tensor<1x8x1x1xf32>
// CHECK: return %[[T]]
func.func @global_pool(%x: tensor<1x7x7x8xf32>) -> tensor<1x8x1x1xf32> {
  %t = rlx.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x7x7x8xf32>) -> tensor<1x8x7x7xf32>
  %m = rlx.mean %t {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  return %m : tensor<1x8x1x1xf32>
}

// -----

// Reduced dims dropped, a dynamic one kept: the rest of the permutation is
// renumbered over the dims that remain.
// CHECK-LABEL: func @max_dropping_dims
// CHECK: %[[M:.+]] = rlx.max %arg0 {axes = array<i64: 1>} : (tensor<?x3x4x5xf32>) -> tensor<?x4x5xf32>
// CHECK: %[[T:.+]] = rlx.transpose %[[M]] {permutation = array<i64: 2, 0, 1>} : (tensor<?x4x5xf32>) -> tensor<5x?x4xf32>
// CHECK: return %[[T]]
func.func @max_dropping_dims(%x: tensor<?x3x4x5xf32>) -> tensor<5x?x4xf32> {
  %t = rlx.transpose %x {permutation = array<i64: 3, 0, 1, 2>} : (tensor<?x3x4x5xf32>) -> tensor<5x?x3x4xf32>
  %m = rlx.max %t {axes = array<i64: 2>} : (tensor<5x?x3x4xf32>) -> tensor<5x?x4xf32>
  return %m : tensor<5x?x4xf32>
}

// -----

// A transpose with another reader stays where it is.
// CHECK-LABEL: func @shared_transpose
// CHECK: %[[T:.+]] = rlx.transpose %arg0
// CHECK: rlx.sum %[[T]]
func.func @shared_transpose(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3xf32>) {
  %t = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = rlx.sum %t {axes = array<i64: 1>} : (tensor<3x2xf32>) -> tensor<3xf32>
  return %t, %s : tensor<3x2xf32>, tensor<3xf32>
}
