func.func @conv_group_divides(%x: tensor<1x5x5x4xf32>, %w: tensor<3x3x2x3xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects filter output channels 3 divisible by groups 2}}
  %0 = rlx.conv2d %x, %w {groups = 2 : i64} : (tensor<1x5x5x4xf32>, tensor<3x3x2x3xf32>) -> tensor<1x3x3x3xf32>
  return
}
