func.func @pad_result(%x: tensor<3xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'rlx.pad' op expects result shape [8], got [6]}}
  %0 = rlx.pad %x, %z {low = array<i64: 1>, high = array<i64: 2>, interior = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
  return
}
