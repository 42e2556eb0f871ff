func.func @constant() -> tensor<2xf32> {
  %0 = "tosa.const"() {values = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
