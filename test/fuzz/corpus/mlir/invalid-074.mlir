func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_no_callee(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects 'nowhere' to name a function with a body}}
  %0 = rlx.grad @nowhere(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
