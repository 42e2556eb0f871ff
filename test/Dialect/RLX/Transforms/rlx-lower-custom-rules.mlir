// RUN: rlx-opt %s -split-input-file -rlx-lower-custom-rules -verify-diagnostics | FileCheck %s

// Outside differentiation custom_vjp, custom_jvp and remat compute their
// callee: calls of it.
// CHECK-LABEL: func @rules
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>)
// CHECK: %[[A:.+]] = call @sq(%[[X]]) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK: %[[B:.+]] = call @sq(%[[A]]) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK: %[[C:.+]] = call @sq(%[[B]]) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK: return %[[C]]
// CHECK-NOT: rlx.custom_
// CHECK-NOT: rlx.remat
func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sq_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @sq_bwd(%x: tensor<3xf32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %two = rlx.add %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %g = rlx.mul %two, %ct : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
func.func private @sq_jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %two = rlx.add %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %ty = rlx.mul %two, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %ty : tensor<3xf32>, tensor<3xf32>
}
func.func @rules(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = rlx.custom_vjp @sq(%x) {fwd = @sq_fwd, bwd = @sq_bwd} : (tensor<3xf32>) -> tensor<3xf32>
  %b = rlx.custom_jvp @sq(%a) {jvp = @sq_jvp} : (tensor<3xf32>) -> tensor<3xf32>
  %c = rlx.remat @sq(%b) : (tensor<3xf32>) -> tensor<3xf32>
  return %c : tensor<3xf32>
}

// -----

// Negative: while a marker is left, its callee's custom rules are still
// needed: the pass fails.
func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @marker_left(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %r = rlx.remat @sq(%x) : (tensor<3xf32>) -> tensor<f32>
  // expected-error @+1 {{'rlx.grad' op expects markers expanded (rlx-autodiff) before custom rules are lowered to calls}}
  %g = rlx.grad @sq(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %r, %g : tensor<f32>, tensor<3xf32>
}
