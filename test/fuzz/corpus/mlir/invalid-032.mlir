func.func @reduce_types(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.sum' op expects input and result of one element type}}
  %0 = rlx.sum %x {axes = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf64>
  return
}
