// RUN: rlx-opt %s -split-input-file -rlx-add-gradient-entries="value-and-grad=loss grad=loss check-grads=loss" -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @loss(
// CHECK: func.func @loss_jvp(%{{.+}}: tensor<?x4xf32> {rlx.name = "x"}, %{{.+}}: tensor<?x4xf32> {rlx.name = "tangent.x"}, %{{.+}}: tensor<4xf32> {rlx.name = "tangent.fc.w"}) -> (tensor<f32> {rlx.name = "out0"}, tensor<f32> {rlx.name = "tangent.out0"})
// CHECK: rlx.jvp @loss
// CHECK: func.func @loss_vjp(%{{.+}}: tensor<?x4xf32> {rlx.name = "x"}, %{{.+}}: tensor<f32> {rlx.name = "cotangent.out0"}) -> (tensor<f32> {rlx.name = "out0"}, tensor<?x4xf32> {rlx.name = "grad.x"}, tensor<4xf32> {rlx.name = "grad.fc.w"})
// CHECK: rlx.vjp @loss
// CHECK: func.func @loss_value_and_grad(%{{.+}}: tensor<?x4xf32> {rlx.name = "x"}) -> (tensor<f32> {rlx.name = "value"}, tensor<4xf32> {rlx.name = "grad.fc.w"})
// CHECK: rlx.value_and_grad @loss(%{{.+}}) {wrt_params = "all"}
// CHECK: func.func @loss_grad(%{{.+}}: tensor<?x4xf32> {rlx.name = "x"}) -> (tensor<4xf32> {rlx.name = "grad.fc.w"})
// CHECK: rlx.grad @loss(%{{.+}}) {wrt_params = "all"}
func.func @loss(%x: tensor<?x4xf32> {rlx.name = "x"}) -> tensor<f32> {
  %w = rlx.param "fc.w" : tensor<4xf32>
  %m = rlx.mul %x, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %s = rlx.sum %m {axes = array<i64: 0, 1>} : (tensor<?x4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// expected-error @+1 {{cannot differentiate 'loss' with respect to its params: it reads none}}
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %s = rlx.sum %x {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// expected-error @+1 {{cannot differentiate 'loss': no function with a body has that name}}
module {
}
