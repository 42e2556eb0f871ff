// TOSA's own verifier rejects a non-zero zero point on floats; integers reach
// the import, which has no quantized arithmetic.
func.func @nonzero_zero_point(%a: tensor<1x2x3xi8>, %b: tensor<1x3x4xi8>) -> tensor<1x2x4xi32> {
  %a_zp = "tosa.const"() {values = dense<3> : tensor<1xi8>} : () -> tensor<1xi8>
  %b_zp = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.matmul' op expects a_zp to be zero (quantized TOSA is not supported), got dense<3> : tensor<1xi8>}}
  %0 = tosa.matmul %a, %b, %a_zp, %b_zp : (tensor<1x2x3xi8>, tensor<1x3x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x4xi32>
  return %0 : tensor<1x2x4xi32>
}
