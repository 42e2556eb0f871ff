func.func @pad_value_rank(%x: tensor<3xf32>, %z: tensor<1xf32>) {
  // expected-error @+1 {{'rlx.pad' op expects a rank-0 padding value, got [1]}}
  %0 = rlx.pad %x, %z {low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}
