func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.negate %x, %zp, %zp : (tensor<2x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %1 = tosa.exp %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tosa.log %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = tosa.tanh %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = tosa.sigmoid %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = tosa.rsqrt %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = tosa.abs %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = tosa.reciprocal %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = tosa.identity %7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %8 : tensor<2x3xf32>
}
