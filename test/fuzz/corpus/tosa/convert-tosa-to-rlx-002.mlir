// A constant zero bias adds nothing.
func.func @conv2d_zero_bias(%x: tensor<?x4x4x2xf16>, %w: tensor<8x1x1x2xf16>) -> tensor<?x4x4x8xf16> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf16>} : () -> tensor<1xf16>
  %bias = "tosa.const"() {values = dense<0.0> : tensor<8xf16>} : () -> tensor<8xf16>
  %0 = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x4x4x2xf16>, tensor<8x1x1x2xf16>, tensor<8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<?x4x4x8xf16>
  return %0 : tensor<?x4x4x8xf16>
}
