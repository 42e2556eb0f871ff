// The OHWI weight becomes an HWIO filter; the bias is added with broadcasting.
func.func @conv2d(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %bias: tensor<4xf32>) -> tensor<1x4x7x4xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 1, 1, 2>, stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x7x4xf32>
  return %0 : tensor<1x4x7x4xf32>
}
