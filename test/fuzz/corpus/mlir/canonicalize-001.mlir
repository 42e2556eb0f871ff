// Negative: adding zeros that broadcast x to a larger shape is not x.
func.func @neutral_but_broadcasting(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  %zero = rlx.constant dense<0.0> : tensor<3x4xf32>
  %a = rlx.add %x, %zero : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %a : tensor<3x4xf32>
}
