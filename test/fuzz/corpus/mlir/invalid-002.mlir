// The declared result must be exactly the inferred one: not more dynamic.
func.func @broadcast_result_dynamic(%a: tensor<4x3xf32>, %b: tensor<?x3xf32>) {
  // expected-error @+1 {{'rlx.add' op expects result shape [4,3] (the broadcast of the operands), got [?,3]}}
  %0 = rlx.add %a, %b : (tensor<4x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}
