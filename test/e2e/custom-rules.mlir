// custom_vjp, custom_jvp and remat: the user's rules are used (a custom VJP
// that halves the true adjoint shows up in the gradient), remat gives the
// same gradient as the plain function while recomputing its block in the
// backward sweep. Expected values are closed forms at x = [-3, -2, -1].
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.x.npy f64 3
// RUN: rlx-run %t.so --fn custom_vjp_grad --input %t.x.npy | FileCheck %s --check-prefix=VJP
// VJP: out0: f64[] = [14]
// VJP: out1: f64[3] = [-3, -2, -1]
// RUN: rlx-run %t.so --fn custom_jvp_tangent --input %t.x.npy --input %t.x.npy | FileCheck %s --check-prefix=JVP
// JVP: out0: f64[3] = [0.0497871, 0.135335, 0.367879]
// JVP: out1: f64[3] = [-9, -6, -3]
// RUN: rlx-run %t.so --fn remat_grad --input %t.x.npy | FileCheck %s --check-prefix=REMAT
// REMAT: out0: f64[3] = [0.00417477, 0.0313253, 0.246868]
// REMAT: out1: f64[3] = [0.00417477, 0.0313253, 0.246868]

// The recomputation survives CSE: the remat gradient holds its own tanh pair
// behind an optimization barrier.
// RUN: rlxc %s --compile-to=simplify | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @remat_grad
// IR: rlx.optimization_barrier
// IR-COUNT-4: rlx.tanh
func.func private @sq(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func private @sq_fwd(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %y = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %y, %x : tensor<3xf64>, tensor<3xf64>
}
// A deliberately different rule: half the true adjoint, g * x.
func.func private @sq_bwd(%x: tensor<3xf64>, %g: tensor<3xf64>) -> tensor<3xf64> {
  %r = rlx.mul %g, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}
func.func private @loss_custom(%x: tensor<3xf64>) -> tensor<f64> {
  %y = rlx.custom_vjp @sq(%x) {fwd = @sq_fwd, bwd = @sq_bwd} : (tensor<3xf64>) -> tensor<3xf64>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @custom_vjp_grad(%x: tensor<3xf64> {rlx.name = "x"}) -> (tensor<f64>, tensor<3xf64>) {
  %v, %g = rlx.value_and_grad @loss_custom(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %v, %g : tensor<f64>, tensor<3xf64>
}
func.func private @ex(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.exp %x : tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func private @ex_jvp(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %y = rlx.exp %x : tensor<3xf64>
  %c = rlx.constant dense<3.0> : tensor<f64>
  %ty = rlx.mul %t, %c : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
  return %y, %ty : tensor<3xf64>, tensor<3xf64>
}
func.func private @use_ex(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.custom_jvp @ex(%x) {jvp = @ex_jvp} : (tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @custom_jvp_tangent(%x: tensor<3xf64> {rlx.name = "x"}, %t: tensor<3xf64> {rlx.name = "t"}) -> (tensor<3xf64>, tensor<3xf64>) {
  %y, %ty = rlx.jvp @use_ex(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %y, %ty : tensor<3xf64>, tensor<3xf64>
}
func.func private @block(%x: tensor<3xf64>) -> tensor<3xf64> {
  %a = rlx.tanh %x : tensor<3xf64>
  %b = rlx.tanh %a : tensor<3xf64>
  return %b : tensor<3xf64>
}
func.func private @loss_remat(%x: tensor<3xf64>) -> tensor<f64> {
  %h = rlx.remat @block(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %s = rlx.sum %h {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func private @loss_plain(%x: tensor<3xf64>) -> tensor<f64> {
  %h = func.call @block(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %s = rlx.sum %h {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @remat_grad(%x: tensor<3xf64> {rlx.name = "x"}) -> (tensor<3xf64>, tensor<3xf64>) {
  %g = rlx.grad @loss_remat(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
  %p = rlx.grad @loss_plain(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
  return %g, %p : tensor<3xf64>, tensor<3xf64>
}
