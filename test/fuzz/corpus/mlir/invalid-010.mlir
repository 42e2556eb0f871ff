func.func @select_types(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf64>) {
  // expected-error @+1 {{'rlx.select' op expects on_true, on_false and result of one element type}}
  %0 = rlx.select %c, %x, %y : (tensor<3xi1>, tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return
}
