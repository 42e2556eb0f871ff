func.func @gather_types(%t: tensor<5x3xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.gather' op expects operand and result of one element type}}
  %0 = rlx.gather %t, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf64>
  return
}
