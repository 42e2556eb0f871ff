func.func @reshape_dynamic_to_static(%x: tensor<?x12xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects a dynamic result dim for a dynamic operand, got [4,3]}}
  %0 = rlx.reshape %x : (tensor<?x12xf32>) -> tensor<4x3xf32>
  return
}
