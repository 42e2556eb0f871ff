func.func @bcast_range(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects distinct broadcast dimensions in [0, 2), got [2]}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 2>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}
