func.func @log_softmax_axis(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.log_softmax' op expects axis in [0, 2), got -1}}
  %0 = rlx.log_softmax %x {axis = -1 : i64} : tensor<4x3xf32>
  return
}
