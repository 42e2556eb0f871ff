func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_none_mapped(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects at least one mapped input}}
  %0 = rlx.vmap @sq(%y, %w) {in_axes = [unit, unit], out_axes = array<i64: 0>} : (tensor<3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}
