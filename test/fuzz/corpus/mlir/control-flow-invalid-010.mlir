func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @body_arity(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects body @f to take 1 arguments, it takes 2}}
  %r = rlx.scan @f init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
