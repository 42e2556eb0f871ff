func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @unroll(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects unroll >= 1, got 0}}
  %r = rlx.scan @id init(%h) {length = 2 : i64, unroll = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
