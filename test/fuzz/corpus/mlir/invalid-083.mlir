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

func.func @grad_bad_kind(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects wrt_params to be "all" or a list of param names}}
  %0 = rlx.grad @sq(%x) {wrt_params = 1 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
