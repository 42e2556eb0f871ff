func.func @gather_result(%t: tensor<5x3xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.gather' op expects result shape [2,3], got [3,2]}}
  %0 = rlx.gather %t, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  return
}
