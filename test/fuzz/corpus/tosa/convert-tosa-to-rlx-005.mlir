func.func @integer(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %zp = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = tosa.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tosa.mul %0, %b, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  %2 = tosa.intdiv %1, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = tosa.negate %2, %zp, %zp : (tensor<4xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  return %3 : tensor<4xi32>
}
