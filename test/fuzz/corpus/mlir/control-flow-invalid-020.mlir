func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @other(%x: tensor<3xf32>) -> tensor<3xf64> {
  %w = rlx.cast %x : tensor<3xf32> -> tensor<3xf64>
  return %w : tensor<3xf64>
}
func.func @switch_branch_differs(%i: tensor<i32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.switch' op expects result 0 of branch 1 @other to be 'tensor<3xf32>' (the switch's results), got 'tensor<3xf64>'}}
  %r = rlx.switch %i [@id, @other](%x) : (tensor<i32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
