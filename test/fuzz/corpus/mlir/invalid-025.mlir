func.func @conv_padding_count(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects padding [top, bottom, left, right], got [1,1]}}
  %0 = rlx.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}
