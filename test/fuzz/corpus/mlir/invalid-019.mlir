func.func @conv_filter_static(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x?xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects a static filter shape, got [3,3,2,?]}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xf32>, tensor<3x3x2x?xf32>) -> tensor<1x3x3x?xf32>
  return
}
