func.func @reshape_count(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects the same number of elements, got [4,3] (12) and [13] (13)}}
  %0 = rlx.reshape %x : (tensor<4x3xf32>) -> tensor<13xf32>
  return
}
