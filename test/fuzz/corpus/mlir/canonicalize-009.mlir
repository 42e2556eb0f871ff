// Pieces with a gap between them, or a nonzero padding value, stay.
func.func @gap_stays(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x8xf32> {
  %z = rlx.constant dense<0.0> : tensor<f32>
  %pa = rlx.pad %a, %z {low = array<i64: 0, 0>, high = array<i64: 0, 5>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %pb = rlx.pad %b, %z {low = array<i64: 0, 4>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %s = rlx.add %pa, %pb : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}
func.func @nonzero_padding_stays(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %one = rlx.constant dense<1.0> : tensor<f32>
  %z = rlx.constant dense<0.0> : tensor<f32>
  %pa = rlx.pad %a, %one {low = array<i64: 0, 0>, high = array<i64: 0, 5>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %pb = rlx.pad %b, %z {low = array<i64: 0, 3>, high = array<i64: 0, 0>, interior = array<i64: 0, 0>} : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x8xf32>
  %s = rlx.add %pa, %pb : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}
