// RUN: rlx-opt %s -split-input-file -rlx-reverse-mode | FileCheck %s

// value_and_grad: the forward sweep at the marker, its results first, then
// the adjoint of the param from a seed of one on the result.
// CHECK-LABEL: func @value_and_grad
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>)
// CHECK: %[[W:.+]] = rlx.param "w"
// CHECK: %[[M:.+]] = rlx.mul %[[X]], %[[W]]
// CHECK: %[[S:.+]] = rlx.sum %[[M]]
// CHECK: %[[SEED:.+]] = rlx.add
// CHECK: %[[G:.+]] = rlx.add
// CHECK: %[[GW:.+]] = rlx.mul %[[G]], %[[X]]
// CHECK: return %[[S]], %[[GW]]
// CHECK-NOT: rlx.value_and_grad
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @value_and_grad(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %r:2 = rlx.value_and_grad @f(%x) {wrt_params = ["w"]} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<3xf32>
}

// -----

// vjp: the cotangent is the seed; the input leaf gets a fresh identity.
// CHECK-LABEL: func @vjp
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>, %[[CT:.+]]: tensor<3xf32>)
// CHECK: %[[XI:.+]] = tensor.cast %[[X]]
// CHECK: %[[E:.+]] = rlx.exp %[[XI]]
// CHECK: %[[GX:.+]] = rlx.mul %[[CT]], %[[E]]
// CHECK: return %[[E]], %[[GX]]
func.func private @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %e = rlx.exp %x : tensor<3xf32>
  return %e : tensor<3xf32>
}
func.func @vjp(%x: tensor<3xf32>, %ct: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %r:2 = rlx.vjp @g(%x) cotangents(%ct) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Negative: a grad whose callee still calls a function holding a vmap is
// not ready; the vmap and the grad stay (rlx-autodiff expands the vmap in
// an earlier pass of the round). A jvp is not this pass's kind.
// CHECK-LABEL: func private @mapped
// CHECK: rlx.vmap @h
// CHECK-LABEL: func @not_ready
// CHECK: rlx.grad @outer
// CHECK: rlx.jvp @mapped
func.func private @h(%x: tensor<f32>) -> tensor<f32> {
  %e = rlx.exp %x : tensor<f32>
  return %e : tensor<f32>
}
func.func private @mapped(%xs: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.vmap @h(%xs) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @outer(%xs: tensor<3xf32>) -> tensor<f32> {
  %y = func.call @mapped(%xs) : (tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @not_ready(%xs: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g = rlx.grad @outer(%xs) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  %j:2 = rlx.jvp @mapped(%xs) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %g, %j#1 : tensor<3xf32>, tensor<3xf32>
}
