func.func @select_result(%c: tensor<4x1xi1>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.select' op expects result shape [4,3] (the broadcast of the operands), got [3]}}
  %0 = rlx.select %c, %x, %x : (tensor<4x1xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
