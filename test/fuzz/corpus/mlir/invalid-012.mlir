func.func @matmul_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) {
  // expected-error @+1 {{'rlx.matmul' op expects operands and result of one element type}}
  %0 = rlx.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf32>
  return
}
