func.func private @f(%h: tensor<3xf32>, %k: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %h, %k : tensor<3xf32>, tensor<3xf32>
}
func.func @too_few_results(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects a result per init, got 1 results for 2 inits}}
  %r = rlx.scan @f init(%h, %h) {length = 2 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
