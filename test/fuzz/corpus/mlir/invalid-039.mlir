func.func @reshape_types(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects operand and result of one element type}}
  %0 = rlx.reshape %x : (tensor<4x3xf32>) -> tensor<12xf64>
  return
}
