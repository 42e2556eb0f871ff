// vmap of a function holding a custom_vjp keeps the custom rule: the values
// are x^2 per example, and the gradient through the map is the custom
// adjoint g * x (half the true one), not 2x.
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.xs.npy f64 2,3
// RUN: rlx-run %t.so --fn values --input %t.xs.npy | FileCheck %s --check-prefix=VAL
// VAL: out0: f64[2,3] = [9, 4, 1, 0, 1, 4]
// RUN: rlx-run %t.so --fn grad_of_vmap --input %t.xs.npy | FileCheck %s --check-prefix=GRAD
// GRAD: out0: f64[2,3] = [-3, -2, -1, 0, 1, 2]
func.func private @sq(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func private @sq_fwd(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %y = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %y, %x : tensor<3xf64>, tensor<3xf64>
}
func.func private @sq_bwd(%x: tensor<3xf64>, %g: tensor<3xf64>) -> tensor<3xf64> {
  %r = rlx.mul %g, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}
func.func private @one(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.custom_vjp @sq(%x) {fwd = @sq_fwd, bwd = @sq_bwd} : (tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func private @batched(%xs: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %ys = rlx.vmap @one(%xs) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %ys : tensor<2x3xf64>
}
func.func private @loss(%xs: tensor<2x3xf64>) -> tensor<f64> {
  %ys = func.call @batched(%xs) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = rlx.sum %ys {axes = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @values(%xs: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %r = func.call @batched(%xs) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}
func.func @grad_of_vmap(%xs: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %g = rlx.grad @loss(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %g : tensor<2x3xf64>
}
