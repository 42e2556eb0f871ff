func.func @pad_types(%x: tensor<3xf32>, %z: tensor<f64>) {
  // expected-error @+1 {{'rlx.pad' op expects operand, padding value and result of one element type}}
  %0 = rlx.pad %x, %z {low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<f64>) -> tensor<4xf32>
  return
}
