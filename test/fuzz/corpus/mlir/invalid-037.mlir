func.func @softmax_axis(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.softmax' op expects axis in [0, 2), got 2}}
  %0 = rlx.softmax %x {axis = 2 : i64} : tensor<4x3xf32>
  return
}
