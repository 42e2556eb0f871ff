func.func @reshape_static_to_dynamic(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects a static result for a static operand, got [?]}}
  %0 = rlx.reshape %x : (tensor<4x3xf32>) -> tensor<?xf32>
  return
}
