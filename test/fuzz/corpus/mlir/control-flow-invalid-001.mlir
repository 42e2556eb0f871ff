func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @negative_length(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects a non-negative length, got -1}}
  %r = rlx.scan @id init(%h) {length = -1 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
