func.func private @f(%h: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %h, %h : tensor<3xf32>, tensor<3xf32>
}
func.func @stacked_length(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects stacked output 0 to have a leading dim of 2 (the number of steps), got 'tensor<3x3xf32>'}}
  %r:2 = rlx.scan @f init(%h) {length = 2 : i64} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>)
  return
}
