func.func @pool_padding(%x: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'rlx.avg_pool2d' op expects padding smaller than the window, got [2,0,0,0]}}
  %0 = rlx.avg_pool2d %x {window = array<i64: 2, 2>, padding = array<i64: 2, 0, 0, 0>} : (tensor<1x4x4x2xf32>) -> tensor<1x5x3x2xf32>
  return
}
