func.func private @f(%h: tensor<3xf32>, %x: tensor<2xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @slice_type(%h: tensor<3xf32>, %x: tensor<5x4xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects argument 1 of body @f to be 'tensor<4xf32>', got 'tensor<2xf32>'}}
  %r = rlx.scan @f init(%h) xs(%x) : (tensor<3xf32>, tensor<5x4xf32>) -> tensor<3xf32>
  return
}
