// Zero pads of abutting pieces along one dim add up to their concatenation
// (the adjoint of a tensor sliced into parts: one copy, no fill or add).
func.func @abutting_pads(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x2xf32>) -> tensor<2x8xf32> {
  %z = rlx.constant dense<0.0> : tensor<f32>
  %pa = rlx.pad %a, %z {low = array<i64: 0, 0>, high = array<i64: 0, 5>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %pb = rlx.pad %b, %z {low = array<i64: 0, 3>, high = array<i64: 0, 2>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %pc = rlx.pad %c, %z {low = array<i64: 0, 6>, high = array<i64: 0, 0>, interior = array<i64: 0, 0>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x8xf32>
  %s = rlx.add %pc, %pb : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = rlx.add %s, %pa : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %t : tensor<2x8xf32>
}
