func.func @conv_positive(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects positive window sizes, strides and dilations}}
  %0 = rlx.conv2d %x, %w {strides = array<i64: 0, 1>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}
