func.func @compare_direction(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.compare' op expects direction eq, ne, lt, le, gt or ge, got "gte"}}
  %0 = rlx.compare "gte", %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}
