func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'rlx.matmul' op expects operands of rank 2 or more, got [3] and [3,4]}}
  %0 = rlx.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return
}
