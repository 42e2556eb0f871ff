func.func @broadcast_result(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.mul' op expects result shape [4,3] (the broadcast of the operands), got [4,1]}}
  %0 = rlx.mul %a, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  return
}
