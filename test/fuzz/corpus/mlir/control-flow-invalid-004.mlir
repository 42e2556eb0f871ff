func.func private @f(%h: tensor<3xf32>, %x: tensor<f32>, %y: tensor<f32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @lengths_differ(%h: tensor<3xf32>, %x: tensor<5xf32>, %y: tensor<6xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects every xs to have 5 steps (the first xs), xs 1 has 6}}
  %r = rlx.scan @f init(%h) xs(%x, %y) : (tensor<3xf32>, tensor<5xf32>, tensor<6xf32>) -> tensor<3xf32>
  return
}
