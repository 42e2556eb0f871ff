func.func private @vec2(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func private @dyn(%x: tensor<?xf64>) -> tensor<?xf64> {
  return %x : tensor<?xf64>
}
func.func @jac_wrt(%x: tensor<3xf64>, %d: tensor<?xf64>) {
  // expected-error @+1 {{'rlx.jacfwd' op expects wrt in [0, 1), got 1}}
  %0 = rlx.jacfwd @vec2(%x) {wrt = 1 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  return
}
