func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_result_type(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects result 0 of type 'tensor<3x4xf32>', got 'tensor<4x3xf32>'}}
  %0 = rlx.vmap @sq(%x, %w) {in_axes = [0, unit], out_axes = array<i64: 1>} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}
