func.func @integer_conv2d(%x: tensor<1x4x4x2xi8>, %w: tensor<8x1x1x2xi8>, %bias: tensor<8xi32>) -> tensor<1x4x4x8xi32> {
  %zp = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.conv2d' op expects floating-point input, weight, bias and output of one element type}}
  %0 = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = i32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<8x1x1x2xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>
  return %0 : tensor<1x4x4x8xi32>
}
