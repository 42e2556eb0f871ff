func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sq_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @bad_fwd(%x: tensor<3xf32>) -> tensor<4xf32> {
  %c = rlx.constant dense<0.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func private @sq_bwd(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  return %g : tensor<3xf32>
}
func.func @custom_jvp_rule(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.custom_jvp' op expects jvp @sq to take 2 arguments of the expected types}}
  %0 = rlx.custom_jvp @sq(%x) {jvp = @sq} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
