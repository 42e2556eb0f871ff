func.func @bcast_dynamic(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects result dim 0 to be static: no operand dim gives its size}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<?x3xf32>
  return
}
