func.func @pool_result(%x: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'rlx.max_pool2d' op expects result shape [1,3,3,2], got [1,4,4,2]}}
  %0 = rlx.max_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return
}
