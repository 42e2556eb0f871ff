// The rlx.conv2d rule, checked before the weight transpose is built.
func.func @dynamic_conv_weight(%x: tensor<1x5x5x1xf32>, %w: tensor<?x3x3x1xf32>, %b: tensor<1xf32>) -> tensor<1x3x3x?xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+1 {{'tosa.conv2d' op expects a static filter shape, got [3,3,1,?]}}
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x5x5x1xf32>, tensor<?x3x3x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x?xf32>
  return %0 : tensor<1x3x3x?xf32>
}
