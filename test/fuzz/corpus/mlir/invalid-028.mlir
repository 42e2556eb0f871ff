func.func @conv_result(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects result shape [1,3,3,4], got [1,5,5,4]}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x5x5x4xf32>
  return
}
