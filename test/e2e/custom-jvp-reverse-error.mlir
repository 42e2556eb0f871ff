// RUN: not rlxc %s --compile-to=transform 2>&1 | FileCheck %s
func.func private @ex(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.exp %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @ex_jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.exp %x : tensor<3xf32>
  return %y, %t : tensor<3xf32>, tensor<3xf32>
}
func.func private @loss(%x: tensor<3xf32>) -> tensor<f32> {
  // CHECK: custom-jvp-reverse-error.mlir:[[@LINE+1]]:8: error: 'rlx.custom_jvp' op cannot be differentiated in reverse mode: it defines only a JVP (give a custom_vjp instead)
  %y = rlx.custom_jvp @ex(%x) {jvp = @ex_jvp} : (tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @reverse_mode(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = rlx.grad @loss(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
