func.func @concat_total(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'rlx.concat' op expects result dim 0 to be [4], got [5]}}
  %0 = rlx.concat %x, %x {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return
}
