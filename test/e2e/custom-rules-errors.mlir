// A custom_vjp under forward mode, or a custom_jvp under reverse mode, is an
// error naming the op and what to use instead.
// RUN: not rlxc %s --compile-to=transform 2>&1 | FileCheck %s
func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sq_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @sq_bwd(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  return %g : tensor<3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: custom-rules-errors.mlir:[[@LINE+1]]:8: error: 'rlx.custom_vjp' op cannot be differentiated in forward mode: it defines only a VJP (give a custom_jvp instead)
  %y = rlx.custom_vjp @sq(%x) {fwd = @sq_fwd, bwd = @sq_bwd} : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @forward_mode(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<3xf32> {
  %y, %ty = rlx.jvp @f(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %ty : tensor<3xf32>
}
