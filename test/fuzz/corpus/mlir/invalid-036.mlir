func.func @mean_int(%x: tensor<4x3xi32>) {
  // expected-error @+1 {{'rlx.mean' op expects a floating-point tensor}}
  %0 = rlx.mean %x {axes = array<i64: 1>} : (tensor<4x3xi32>) -> tensor<4xi32>
  return
}
