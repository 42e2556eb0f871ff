func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @carry_result(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects result 0 (the final carry) to have the init's type 'tensor<3xf32>', got 'tensor<3xf64>'}}
  %r = rlx.scan @id init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf64>
  return
}
