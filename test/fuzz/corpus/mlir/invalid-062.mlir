func.func @concat_rank(%x: tensor<2xf32>, %y: tensor<2x1xf32>) {
  // expected-error @+1 {{'rlx.concat' op expects every input of rank 1, input 1 is [2,1]}}
  %0 = rlx.concat %x, %y {axis = 0 : i64} : (tensor<2xf32>, tensor<2x1xf32>) -> tensor<4xf32>
  return
}
