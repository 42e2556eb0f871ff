func.func @compare_result(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.compare' op expects result shape [4,3] (the broadcast of the operands), got [3]}}
  %0 = rlx.compare "lt", %a, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}
