func.func private @c(%x: tensor<f32>) -> tensor<i1> {
  %t = rlx.constant dense<true> : tensor<i1>
  return %t : tensor<i1>
}
func.func private @b(%x: tensor<f32>) -> tensor<f64> {
  %w = rlx.cast %x : tensor<f32> -> tensor<f64>
  return %w : tensor<f64>
}
func.func @while_body_type(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.while' op expects result 0 of body @b to be 'tensor<f32>' (the next carry), got 'tensor<f64>'}}
  %r = rlx.while @c, @b init(%x) : (tensor<f32>) -> tensor<f32>
  return
}
