func.func private @vec2(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func private @dyn(%x: tensor<?xf64>) -> tensor<?xf64> {
  return %x : tensor<?xf64>
}
func.func @hessian_scalar(%x: tensor<3xf64>, %d: tensor<?xf64>) {
  // expected-error @+1 {{'rlx.hessian' op expects a one-element result for a Hessian, got 'tensor<2xf64>'}}
  %0 = rlx.hessian @vec2(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<3x3xf64>
  return
}
