func.func @conv_types(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf64>) {
  // expected-error @+1 {{'rlx.conv2d' op expects input, filter and result of one element type}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf64>) -> tensor<1x3x3x4xf32>
  return
}
