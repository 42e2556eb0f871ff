func.func @nonzero_shift(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %shift = "tosa.const"() {values = dense<2> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.mul' op expects shift to be zero}}
  %0 = tosa.mul %a, %b, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
