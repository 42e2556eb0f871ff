func.func @missing_body(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects body 'nowhere' to name a function with a body}}
  %r = rlx.scan @nowhere init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
