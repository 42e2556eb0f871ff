func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @checkpoint_every(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects checkpoint_every >= 1, got 0}}
  %r = rlx.scan @id init(%h) {length = 4 : i64, checkpoint_every = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
