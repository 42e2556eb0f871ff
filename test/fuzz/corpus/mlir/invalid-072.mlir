func.func @pad_dynamic(%x: tensor<?xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'rlx.pad' op expects no padding on dynamic dim 0}}
  %0 = rlx.pad %x, %z {low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return
}
