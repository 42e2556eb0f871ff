func.func private @vec2(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func private @dyn(%x: tensor<?xf64>) -> tensor<?xf64> {
  return %x : tensor<?xf64>
}
func.func @jac_type(%x: tensor<3xf64>, %d: tensor<?xf64>) {
  // expected-error @+1 {{'rlx.jacfwd' op expects result type 'tensor<2x3xf64>', got 'tensor<3x2xf64>'}}
  %0 = rlx.jacfwd @vec2(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<3x2xf64>
  return
}
