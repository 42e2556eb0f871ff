func.func private @c(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @while_cond_type(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.while' op expects result 0 of cond @c to be 'tensor<i1>' (the condition, a tensor<i1>), got 'tensor<f32>'}}
  %r = rlx.while @c, @c init(%x) : (tensor<f32>) -> tensor<f32>
  return
}
