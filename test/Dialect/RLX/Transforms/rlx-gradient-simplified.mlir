// RUN: rlx-opt %s -rlx-add-gradient-entries="grad=loss" -rlx-phase-transform -rlx-phase-simplify | FileCheck %s

// The gradient of an MLP loss after simplification: one forward sweep (each
// forward op once), then exactly the backward ops the math needs: 3 matmuls
// (dW2, dH, dW1), bias adjoints as column sums, no marker, no zero adds, no
// dead op (everything below feeds a result).
// CHECK-LABEL: func.func @loss_grad
// CHECK-NOT: rlx.grad
// CHECK-COUNT-1: rlx.tanh
// CHECK-NOT: rlx.tanh
// CHECK-COUNT-1: rlx.log_softmax
// CHECK-NOT: rlx.log_softmax
// CHECK: %[[E:.+]] = rlx.exp
// CHECK: rlx.sum %{{.+}} {axes = array<i64: 0>} : (tensor<?x3xf32>) -> tensor<3xf32>
// CHECK: rlx.matmul %{{.+}}, %{{.+}} : (tensor<?x3xf32>, tensor<3x8xf32>) -> tensor<?x8xf32>
// CHECK: rlx.matmul %{{.+}}, %{{.+}} : (tensor<8x?xf32>, tensor<?x3xf32>) -> tensor<8x3xf32>
// CHECK: rlx.sum %{{.+}} {axes = array<i64: 0>} : (tensor<?x8xf32>) -> tensor<8xf32>
// CHECK: rlx.matmul %{{.+}}, %{{.+}} : (tensor<4x?xf32>, tensor<?x8xf32>) -> tensor<4x8xf32>
// CHECK-NOT: rlx.matmul
// CHECK-NOT: rlx.exp
// CHECK: return
func.func @loss(%x: tensor<?x4xf32> {rlx.name = "x"}, %y: tensor<?x3xf32> {rlx.name = "y"}) -> tensor<f32> {
  %w1 = rlx.param "fc1.w" : tensor<4x8xf32>
  %b1 = rlx.param "fc1.b" : tensor<8xf32>
  %w2 = rlx.param "fc2.w" : tensor<8x3xf32>
  %b2 = rlx.param "fc2.b" : tensor<3xf32>
  %h0 = rlx.matmul %x, %w1 : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
  %h1 = rlx.add %h0, %b1 : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %h2 = rlx.tanh %h1 : tensor<?x8xf32>
  %l0 = rlx.matmul %h2, %w2 : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
  %l1 = rlx.add %l0, %b2 : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %lp = rlx.log_softmax %l1 {axis = 1 : i64} : tensor<?x3xf32>
  %t = rlx.mul %lp, %y : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %s = rlx.sum %t {axes = array<i64: 1>} : (tensor<?x3xf32>) -> tensor<?xf32>
  %m = rlx.mean %s {axes = array<i64: 0>} : (tensor<?xf32>) -> tensor<f32>
  %n = rlx.neg %m : tensor<f32>
  return %n : tensor<f32>
}
