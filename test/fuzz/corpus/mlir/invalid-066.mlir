func.func @gather_axis(%t: tensor<5x3xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.gather' op expects axis in [0, 2), got 2}}
  %0 = rlx.gather %t, %i {axis = 2 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return
}
