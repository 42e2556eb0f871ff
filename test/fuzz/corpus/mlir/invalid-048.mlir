func.func @transpose_result(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.transpose' op expects result shape [3,4], got [4,3]}}
  %0 = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}
