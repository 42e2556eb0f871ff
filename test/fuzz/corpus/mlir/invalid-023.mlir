func.func @conv_input_rank(%x: tensor<5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects an NHWC input of rank 4, got [5,5,2]}}
  %0 = rlx.conv2d %x, %w : (tensor<5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}
