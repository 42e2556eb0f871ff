// RUN: rlx-opt %s -split-input-file -rlx-expand-jacobians | FileCheck %s

// jacfwd: a vmap over a basis of the input of a scratch function holding a
// jvp of the callee.
// CHECK-LABEL: func @jacfwd
// CHECK-SAME: (%[[X:.+]]: tensor<3xf64>)
// CHECK: %[[B:.+]] = rlx.constant dense<{{.+}}> : tensor<3x3xf64>
// CHECK: %[[J:.+]] = rlx.vmap @[[FN:.+]](%[[X]], %[[B]]) {in_axes = [unit, 0], out_axes = array<i64: 1>} : (tensor<3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>
// CHECK: return %[[J]]
// CHECK: func.func private @[[FN]](%[[A:.+]]: tensor<3xf64>, %[[T:.+]]: tensor<3xf64>) -> tensor<2xf64> attributes {rlx.autodiff_scratch}
// CHECK: %[[R:.+]]:2 = rlx.jvp @f(%[[A]]) tangents(%[[T]]) {wrt = array<i64: 0>}
// CHECK: return %[[R]]#1
func.func private @f(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func @jacfwd(%x: tensor<3xf64>) -> tensor<2x3xf64> {
  %j = rlx.jacfwd @f(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  return %j : tensor<2x3xf64>
}

// -----

// jacrev: a vmap over a basis of the output of a vjp.
// CHECK-LABEL: func @jacrev
// CHECK: %[[B:.+]] = rlx.constant dense<{{.+}}> : tensor<2x2xf64>
// CHECK: rlx.vmap @[[FN:.+]](%{{.+}}, %[[B]]) {in_axes = [unit, 0], out_axes = array<i64: 0>}
// CHECK: func.func private @[[FN]](%[[A:.+]]: tensor<3xf64>, %[[CT:.+]]: tensor<2xf64>) -> tensor<3xf64>
// CHECK: rlx.vjp @f(%[[A]]) cotangents(%[[CT]])
func.func private @f(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func @jacrev(%x: tensor<3xf64>) -> tensor<2x3xf64> {
  %j = rlx.jacrev @f(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  return %j : tensor<2x3xf64>
}

// -----

// hessian: the jacfwd of a function holding the jacrev, both rewritten in
// the same run; hvp: a jvp of a function holding the grad.
// CHECK-LABEL: func @hessian
// CHECK: rlx.vmap @[[HJ:.+]](%{{.+}}, %{{.+}}) {in_axes = [unit, 0], out_axes = array<i64: 1>}
// CHECK-NOT: rlx.hessian
// CHECK-LABEL: func @hvp
// CHECK-SAME: (%[[X:.+]]: tensor<3xf64>, %[[V:.+]]: tensor<3xf64>)
// CHECK: %[[R:.+]]:2 = rlx.jvp @[[GF:.+]](%[[X]]) tangents(%[[V]]) {wrt = array<i64: 0>}
// CHECK: return %[[R]]#1
// CHECK: func.func private @[[GRAD:.+]](%{{.+}}: tensor<3xf64>) -> tensor<3xf64> attributes {rlx.autodiff_scratch}
// CHECK: rlx.vmap @{{.+}} {in_axes = [unit, 0], out_axes = array<i64: 0>} : (tensor<3xf64>, tensor<1xf64>) -> tensor<1x3xf64>
// CHECK: func.func private @[[GF]](%[[A:.+]]: tensor<3xf64>) -> tensor<3xf64> attributes {rlx.autodiff_scratch}
// CHECK: rlx.grad @s(%[[A]]) {wrt = array<i64: 0>}
// CHECK: func.func private @[[HJ]]
// CHECK: rlx.jvp @[[GRAD]]
// CHECK: rlx.vjp @s
// CHECK-NOT: rlx.jac
func.func private @s(%x: tensor<3xf64>) -> tensor<f64> {
  %m = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @hessian(%x: tensor<3xf64>) -> tensor<3x3xf64> {
  %h = rlx.hessian @s(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<3x3xf64>
  return %h : tensor<3x3xf64>
}
func.func @hvp(%x: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %h = rlx.hvp @s(%x) tangents(%v) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %h : tensor<3xf64>
}

// -----

// Negative: grad, jvp and vmap are not defined by other markers: left as
// they are, and no scratch function is added.
// CHECK-LABEL: func @others
// CHECK: rlx.grad @s
// CHECK: rlx.vmap @s
// CHECK-NOT: rlx.autodiff_scratch
func.func private @s(%x: tensor<3xf64>) -> tensor<f64> {
  %m = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @others(%x: tensor<3xf64>, %xs: tensor<2x3xf64>) -> (tensor<3xf64>, tensor<2xf64>) {
  %g = rlx.grad @s(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
  %m = rlx.vmap @s(%xs) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2xf64>
  return %g, %m : tensor<3xf64>, tensor<2xf64>
}
