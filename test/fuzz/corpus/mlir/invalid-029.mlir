func.func @pool_types(%x: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'rlx.max_pool2d' op expects input and result of one element type}}
  %0 = rlx.max_pool2d %x {window = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x3x3x2xf64>
  return
}
