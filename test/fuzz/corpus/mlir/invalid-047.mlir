func.func @transpose_perm(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.transpose' op expects a permutation of [0, 2), got [1,1]}}
  %0 = rlx.transpose %x {permutation = array<i64: 1, 1>} : (tensor<4x3xf32>) -> tensor<3x3xf32>
  return
}
