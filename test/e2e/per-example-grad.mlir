// rlxc --per-example-grad=FN: FN is written for one example; the entry takes
// every input with a leading batch axis of dynamic size and returns one
// gradient per example and param (the loop equivalence is checked in
// test/unittests/autodiff, Identity.VmapEqualsLoopOfCalls).
// RUN: rlxc %s --per-example-grad=loss -o %t.so
// RUN: rlx-run %t.so --info | FileCheck %s
// CHECK: entry point 'loss_per_example_grad'
// CHECK: inputs:
// CHECK-NEXT: x: f32[?,4]
// CHECK-NEXT: y: f32[?,3]
// CHECK: outputs:
// CHECK-NEXT: grad.fc1.w: f32[?,4,8]
// CHECK-NEXT: grad.fc1.b: f32[?,8]
// CHECK-NEXT: grad.fc2.w: f32[?,8,3]
// RUN: rlx-testdata npy %t.x.npy f32 5,4
// RUN: rlx-testdata npy %t.y.npy f32 5,3
// RUN: rlx-testdata npy %t.w1.npy f32 4,8
// RUN: rlxc %s --per-example-grad=loss --compile-to=simplify | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @loss_per_example_grad
// IR-COUNT-2: rlx.matmul {{.*}} : (tensor<?x1x
// IR-NOT: rlx.vmap
func.func @loss(%x: tensor<4xf32> {rlx.name = "x"}, %y: tensor<3xf32> {rlx.name = "y"}) -> tensor<f32> {
  %w1 = rlx.param "fc1.w" : tensor<4x8xf32>
  %b1 = rlx.param "fc1.b" : tensor<8xf32>
  %w2 = rlx.param "fc2.w" : tensor<8x3xf32>
  %x2 = rlx.reshape %x : (tensor<4xf32>) -> tensor<1x4xf32>
  %h0 = rlx.matmul %x2, %w1 : (tensor<1x4xf32>, tensor<4x8xf32>) -> tensor<1x8xf32>
  %h1 = rlx.add %h0, %b1 : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %h2 = rlx.tanh %h1 : tensor<1x8xf32>
  %l0 = rlx.matmul %h2, %w2 : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  %l = rlx.reshape %l0 : (tensor<1x3xf32>) -> tensor<3xf32>
  %lp = rlx.log_softmax %l {axis = 0 : i64} : tensor<3xf32>
  %t = rlx.mul %lp, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %t {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  %n = rlx.neg %s : tensor<f32>
  return %n : tensor<f32>
}
