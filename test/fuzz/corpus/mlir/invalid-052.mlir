func.func @bcast_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects operand dim 0 ([3]) to be 1 or equal result dim 0 ([2])}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}
