func.func @conv_filter_rank(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects an HWIO filter of rank 4, got [3,3,2]}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xf32>, tensor<3x3x2xf32>) -> tensor<1x3x3x4xf32>
  return
}
