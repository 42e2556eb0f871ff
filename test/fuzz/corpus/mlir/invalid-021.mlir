func.func @conv_channels(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects input channels 3 = filter input channels 2 x groups 1}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x3xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}
