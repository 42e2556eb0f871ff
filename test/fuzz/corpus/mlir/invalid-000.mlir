func.func @broadcast_incompatible(%a: tensor<4x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'rlx.add' op expects operand shapes that broadcast, got [4,3] and [2]}}
  %0 = rlx.add %a, %b : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}
