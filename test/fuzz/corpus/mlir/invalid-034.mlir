func.func @reduce_distinct(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.max' op expects distinct axes, got [1,1]}}
  %0 = rlx.max %x {axes = array<i64: 1, 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}
