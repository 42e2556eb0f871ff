func.func @pad_count(%x: tensor<3xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'rlx.pad' op expects low, high and interior with one entry per dim (1)}}
  %0 = rlx.pad %x, %z {low = array<i64: 1, 0>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
  return
}
