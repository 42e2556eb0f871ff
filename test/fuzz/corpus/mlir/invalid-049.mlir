func.func @bcast_types(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects operand and result of one element type}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf64>
  return
}
