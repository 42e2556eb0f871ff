func.func @transpose_types(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.transpose' op expects operand and result of one element type}}
  %0 = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf64>
  return
}
