func.func @conv_strides_count(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects 2 window sizes, 2 strides and 2 dilations}}
  %0 = rlx.conv2d %x, %w {strides = array<i64: 1>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}
