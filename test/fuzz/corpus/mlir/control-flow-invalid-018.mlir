func.func @switch_empty(%i: tensor<i32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.switch' op expects at least one branch}}
  %r = rlx.switch %i [](%x) : (tensor<i32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
