func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @switch_bool(%p: tensor<i1>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.switch' op expects two branches for an i1 index, got 3}}
  %r = rlx.switch %p [@id, @id, @id](%x) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return
}
