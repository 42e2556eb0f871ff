func.func @transpose_size(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.transpose' op expects a permutation of 2 dims, got [0]}}
  %0 = rlx.transpose %x {permutation = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}
