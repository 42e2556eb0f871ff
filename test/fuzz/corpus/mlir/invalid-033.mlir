func.func @reduce_axis(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.sum' op expects axes in [0, 2), got 2}}
  %0 = rlx.sum %x {axes = array<i64: 2>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}
