func.func @reduce_result(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.sum' op expects result shape [4,1], got [4]}}
  %0 = rlx.sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}
