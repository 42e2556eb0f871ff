func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @checkpoint_dynamic(%h: tensor<3xf32>, %xs: tensor<?xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects a static number of steps with checkpoint_every (give the length attribute)}}
  %r = rlx.scan @f init(%h) xs(%xs) {checkpoint_every = 2 : i64} : (tensor<3xf32>, tensor<?xf32>) -> tensor<3xf32>
  return
}
