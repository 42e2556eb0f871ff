// A gradient of a function that takes a gradient through a vmapped
// custom_vjp. With sq(x) = x^2 and the custom adjoint g * x (half the true
// one), f(xs) = sum vmap(sq)(xs) has the gradient xs by the custom rule, so
// sum grad f = sum xs has the gradient 1 everywhere, and
// sum (grad f)^2 = sum xs^2 has the value 19 and the gradient 2 xs at
// xs = [-3, -2, -1, 0, 1, 2] (the true rule would give 4 and 8 xs).
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.xs.npy f64 2,3
// RUN: rlx-run %t.so --fn grad_f --input %t.xs.npy | FileCheck %s --check-prefix=FIRST
// FIRST: out0: f64[2,3] = [-3, -2, -1, 0, 1, 2]
// RUN: rlx-run %t.so --fn grad_sum_grad --input %t.xs.npy | FileCheck %s --check-prefix=SUM
// SUM: out0: f64[2,3] = [1, 1, 1, 1, 1, 1]
// RUN: rlx-run %t.so --fn value_and_grad_sum_sq_grad --input %t.xs.npy | FileCheck %s --check-prefix=SQ
// SQ: out0: f64[] = [19]
// SQ: out1: f64[2,3] = [-6, -4, -2, 0, 2, 4]
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
func.func private @f(%xs: tensor<2x3xf64>) -> tensor<f64> {
  %ys = rlx.vmap @one(%xs) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = rlx.sum %ys {axes = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_f(%xs: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %g = rlx.grad @f(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %g : tensor<2x3xf64>
}
func.func private @sum_grad(%xs: tensor<2x3xf64>) -> tensor<f64> {
  %g = rlx.grad @f(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = rlx.sum %g {axes = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_sum_grad(%xs: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %g = rlx.grad @sum_grad(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %g : tensor<2x3xf64>
}
func.func private @sum_sq_grad(%xs: tensor<2x3xf64>) -> tensor<f64> {
  %g = rlx.grad @f(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %g2 = rlx.mul %g, %g : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = rlx.sum %g2 {axes = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @value_and_grad_sum_sq_grad(%xs: tensor<2x3xf64>) -> (tensor<f64>, tensor<2x3xf64>) {
  %v, %g = rlx.value_and_grad @sum_sq_grad(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> (tensor<f64>, tensor<2x3xf64>)
  return %v, %g : tensor<f64>, tensor<2x3xf64>
}
