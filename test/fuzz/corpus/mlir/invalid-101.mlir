func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_per_example_type(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects input 0 without its mapped axis 1 to have type 'tensor<3xf32>', got 'tensor<4x3xf32>'}}
  %0 = rlx.vmap @sq(%x, %w) {in_axes = [1, unit], out_axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}
