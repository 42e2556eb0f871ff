func.func private @c(%x: tensor<f32>) -> tensor<i1> {
  %t = rlx.constant dense<true> : tensor<i1>
  return %t : tensor<i1>
}
func.func @while_results(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.while' op expects its results to have the init's types}}
  %r = rlx.while @c, @c init(%x) : (tensor<f32>) -> tensor<f64>
  return
}
