func.func @pad_negative(%x: tensor<3xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'rlx.pad' op expects non-negative padding on dim 0}}
  %0 = rlx.pad %x, %z {low = array<i64: -1>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<2xf32>
  return
}
