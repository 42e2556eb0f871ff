func.func private @f(%h: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %h, %h : tensor<3xf32>, tensor<3xf32>
}
func.func @body_result_count(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects body @f to return 1 values (the carry, then one slice per stacked output), it returns 2}}
  %r = rlx.scan @f init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
