func.func @bcast_count(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects one broadcast dimension per operand dim (1), got [0,1]}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}
