func.func @concat_axis(%x: tensor<2xf32>) {
  // expected-error @+1 {{'rlx.concat' op expects axis in [0, 1), got 1}}
  %0 = rlx.concat %x, %x {axis = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}
