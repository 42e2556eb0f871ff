func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @length_attr_differs(%h: tensor<3xf32>, %x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects every xs to have 4 steps (the length), xs 0 has 5}}
  %r = rlx.scan @f init(%h) xs(%x) {length = 4 : i64} : (tensor<3xf32>, tensor<5xf32>) -> tensor<3xf32>
  return
}
