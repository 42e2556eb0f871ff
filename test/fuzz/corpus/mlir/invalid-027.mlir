func.func @conv_negative_padding(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects non-negative padding, got [-1,0,0,0]}}
  %0 = rlx.conv2d %x, %w {padding = array<i64: -1, 0, 0, 0>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}
