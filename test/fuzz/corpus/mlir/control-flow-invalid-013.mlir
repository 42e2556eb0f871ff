func.func private @widen(%h: tensor<3xf32>) -> tensor<3xf64> {
  %w = rlx.cast %h : tensor<3xf32> -> tensor<3xf64>
  return %w : tensor<3xf64>
}
func.func @carry_changed(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects result 0 of body @widen to be 'tensor<3xf32>' (the carry, then one slice per stacked output), got 'tensor<3xf64>'}}
  %r = rlx.scan @widen init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}
