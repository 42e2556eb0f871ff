// rlx.compare takes operands of one type: a size-1 dim is stretched first.
func.func @compare_select(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = tosa.greater %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %1 = tosa.greater_equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = tosa.equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = tosa.select %0, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %3, %1, %2 : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi1>
}
