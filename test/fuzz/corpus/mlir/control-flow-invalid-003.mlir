func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @scalar_xs(%h: tensor<3xf32>, %x: tensor<f32>) {
  // expected-error @+1 {{'rlx.scan' op expects xs 0 to have a leading dim to scan over, got 'tensor<f32>'}}
  %r = rlx.scan @f init(%h) xs(%x) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}
