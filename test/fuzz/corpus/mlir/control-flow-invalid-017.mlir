func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @switch_rank(%i: tensor<2xi32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.switch' op expects a rank-0 index, got 'tensor<2xi32>'}}
  %r = rlx.switch %i [@id](%x) : (tensor<2xi32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
