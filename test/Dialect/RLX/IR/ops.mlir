// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s

// CHECK-LABEL: func @leaves
func.func @leaves() -> (tensor<784x128xf32>, tensor<2xf32>) {
  // CHECK: rlx.param "encoder.layers.0.fc1.weight" : tensor<784x128xf32>
  %w = rlx.param "encoder.layers.0.fc1.weight" : tensor<784x128xf32>
  // CHECK: rlx.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %c = rlx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %w, %c : tensor<784x128xf32>, tensor<2xf32>
}

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<?x4xf32>, %b: tensor<4xf32>, %i: tensor<3xi32>) -> tensor<?x4xf32> {
  // CHECK: rlx.add %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %0 = rlx.add %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: rlx.sub
  %1 = rlx.sub %0, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: rlx.mul
  %2 = rlx.mul %1, %a : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: rlx.div
  %3 = rlx.div %2, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: rlx.pow
  %4 = rlx.pow %3, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: rlx.maximum
  %5 = rlx.maximum %4, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: rlx.minimum
  %6 = rlx.minimum %5, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: rlx.add %{{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %7 = rlx.add %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  // CHECK: rlx.rem %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %8 = rlx.rem %6, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: rlx.rem %{{.*}}, %{{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %9 = rlx.rem %7, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %8 : tensor<?x4xf32>
}

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: rlx.neg
  %0 = rlx.neg %x : tensor<?x4xf32>
  // CHECK: rlx.abs
  %1 = rlx.abs %0 : tensor<?x4xf32>
  // CHECK: rlx.exp
  %2 = rlx.exp %1 : tensor<?x4xf32>
  // CHECK: rlx.log
  %3 = rlx.log %2 : tensor<?x4xf32>
  // CHECK: rlx.sqrt
  %4 = rlx.sqrt %3 : tensor<?x4xf32>
  // CHECK: rlx.rsqrt
  %5 = rlx.rsqrt %4 : tensor<?x4xf32>
  // CHECK: rlx.tanh
  %6 = rlx.tanh %5 : tensor<?x4xf32>
  // CHECK: rlx.sigmoid
  %7 = rlx.sigmoid %6 : tensor<?x4xf32>
  // CHECK: rlx.relu
  %8 = rlx.relu %7 : tensor<?x4xf32>
  // CHECK: rlx.gelu %{{.*}} : tensor<?x4xf32>
  %9 = rlx.gelu %8 : tensor<?x4xf32>
  // CHECK: rlx.gelu %{{.*}} {approximate = "erf"} : tensor<?x4xf32>
  %10 = rlx.gelu %9 {approximate = "erf"} : tensor<?x4xf32>
  return %10 : tensor<?x4xf32>
}

// CHECK-LABEL: func @compare_select_cast
func.func @compare_select_cast(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<4xi32> {
  // CHECK: rlx.compare "gt", %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %m = rlx.compare "gt", %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK: rlx.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %s = rlx.select %m, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: rlx.cast %{{.*}} : tensor<4xf32> -> tensor<4xi32>
  %c = rlx.cast %s : tensor<4xf32> -> tensor<4xi32>
  return %c : tensor<4xi32>
}

// The unsigned integers are cast's alone: it reads and writes them.
// CHECK-LABEL: func @cast_unsigned
func.func @cast_unsigned(%x: tensor<?x3xui8>) -> tensor<?x3xui64> {
  // CHECK: rlx.cast %{{.*}} : tensor<?x3xui8> -> tensor<?x3xi32>
  %i = rlx.cast %x : tensor<?x3xui8> -> tensor<?x3xi32>
  // CHECK: rlx.cast %{{.*}} : tensor<?x3xi32> -> tensor<?x3xui64>
  %u = rlx.cast %i : tensor<?x3xi32> -> tensor<?x3xui64>
  return %u : tensor<?x3xui64>
}

// CHECK-LABEL: func @contractions
func.func @contractions(%x: tensor<?x784xf32>, %w: tensor<784x10xf32>,
                        %a: tensor<?x2x3xf64>, %b: tensor<1x3x4xf64>) -> (tensor<?x10xf32>, tensor<?x2x4xf64>) {
  // CHECK: rlx.matmul %{{.*}}, %{{.*}} : (tensor<?x784xf32>, tensor<784x10xf32>) -> tensor<?x10xf32>
  %0 = rlx.matmul %x, %w : (tensor<?x784xf32>, tensor<784x10xf32>) -> tensor<?x10xf32>
  // CHECK: rlx.matmul %{{.*}}, %{{.*}} : (tensor<?x2x3xf64>, tensor<1x3x4xf64>) -> tensor<?x2x4xf64>
  %1 = rlx.matmul %a, %b : (tensor<?x2x3xf64>, tensor<1x3x4xf64>) -> tensor<?x2x4xf64>
  return %0, %1 : tensor<?x10xf32>, tensor<?x2x4xf64>
}

// CHECK-LABEL: func @windows
func.func @windows(%x: tensor<?x28x28x1xf32>, %w: tensor<3x3x1x8xf32>) -> (tensor<?x7x7x8xf32>, tensor<?x7x7x8xf32>) {
  // CHECK: rlx.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
  %c = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<?x28x28x1xf32>, tensor<3x3x1x8xf32>) -> tensor<?x14x14x8xf32>
  // CHECK: rlx.max_pool2d %{{.*}} {strides = array<i64: 2, 2>, window = array<i64: 2, 2>}
  %m = rlx.max_pool2d %c {window = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<?x14x14x8xf32>) -> tensor<?x7x7x8xf32>
  // CHECK: rlx.avg_pool2d %{{.*}} {padding = array<i64: 1, 1, 1, 1>, window = array<i64: 3, 3>}
  %a = rlx.avg_pool2d %m {window = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<?x7x7x8xf32>) -> tensor<?x7x7x8xf32>
  return %m, %a : tensor<?x7x7x8xf32>, tensor<?x7x7x8xf32>
}

// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<?x4x5xf32>) -> (tensor<?xf32>, tensor<?x1x1xf32>, tensor<?x5xf32>, tensor<?x4x5xf32>, tensor<?x4x5xf32>) {
  // CHECK: rlx.sum %{{.*}} {axes = array<i64: 1, 2>} : (tensor<?x4x5xf32>) -> tensor<?xf32>
  %s = rlx.sum %x {axes = array<i64: 1, 2>} : (tensor<?x4x5xf32>) -> tensor<?xf32>
  // CHECK: rlx.mean %{{.*}} {axes = array<i64: 1, 2>, keepdims = true}
  %m = rlx.mean %x {axes = array<i64: 1, 2>, keepdims = true} : (tensor<?x4x5xf32>) -> tensor<?x1x1xf32>
  // CHECK: rlx.max %{{.*}} {axes = array<i64: 1>}
  %x1 = rlx.max %x {axes = array<i64: 1>} : (tensor<?x4x5xf32>) -> tensor<?x5xf32>
  // CHECK: rlx.softmax %{{.*}} {axis = 2 : i64} : tensor<?x4x5xf32>
  %p = rlx.softmax %x {axis = 2 : i64} : tensor<?x4x5xf32>
  // CHECK: rlx.log_softmax %{{.*}} {axis = 1 : i64} : tensor<?x4x5xf32>
  %l = rlx.log_softmax %x {axis = 1 : i64} : tensor<?x4x5xf32>
  return %s, %m, %x1, %p, %l : tensor<?xf32>, tensor<?x1x1xf32>, tensor<?x5xf32>, tensor<?x4x5xf32>, tensor<?x4x5xf32>
}

// CHECK-LABEL: func @shapes
func.func @shapes(%x: tensor<?x28x28xf32>, %v: tensor<4xf32>, %t: tensor<1000x64xf32>, %ids: tensor<?x16xi32>)
    -> (tensor<?x784xf32>, tensor<28x?x28xf32>, tensor<3x4xf32>, tensor<?x14x28xf32>, tensor<?x56x28xf32>, tensor<?x16x64xf32>) {
  // CHECK: rlx.reshape %{{.*}} : (tensor<?x28x28xf32>) -> tensor<?x784xf32>
  %r = rlx.reshape %x : (tensor<?x28x28xf32>) -> tensor<?x784xf32>
  // CHECK: rlx.transpose %{{.*}} {permutation = array<i64: 1, 0, 2>}
  %t0 = rlx.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<?x28x28xf32>) -> tensor<28x?x28xf32>
  // CHECK: rlx.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64: 1>}
  %b = rlx.broadcast_in_dim %v {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: rlx.slice %{{.*}} {limit = array<i64: -1, 28, 28>, start = array<i64: 0, 0, 0>, strides = array<i64: 1, 2, 1>}
  %s = rlx.slice %x {start = array<i64: 0, 0, 0>, limit = array<i64: -1, 28, 28>, strides = array<i64: 1, 2, 1>}
      : (tensor<?x28x28xf32>) -> tensor<?x14x28xf32>
  // CHECK: rlx.concat %{{.*}}, %{{.*}} {axis = 1 : i64}
  %c = rlx.concat %x, %x {axis = 1 : i64} : (tensor<?x28x28xf32>, tensor<?x28x28xf32>) -> tensor<?x56x28xf32>
  // CHECK: rlx.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<?x16xi32>) -> tensor<?x16x64xf32>
  %g = rlx.gather %t, %ids {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<?x16xi32>) -> tensor<?x16x64xf32>
  return %r, %t0, %b, %s, %c, %g : tensor<?x784xf32>, tensor<28x?x28xf32>, tensor<3x4xf32>, tensor<?x14x28xf32>, tensor<?x56x28xf32>, tensor<?x16x64xf32>
}

// CHECK-LABEL: func @autodiff_ops
func.func @autodiff_ops(%x: tensor<?x3xf32>, %z: tensor<f32>) -> (tensor<?x3xf32>, tensor<?x7xf32>, tensor<?x3xf32>) {
  // CHECK: rlx.erf %{{.*}} : tensor<?x3xf32>
  %e = rlx.erf %x : tensor<?x3xf32>
  // CHECK: rlx.sin %{{.*}} : tensor<?x3xf32>
  %sin = rlx.sin %e : tensor<?x3xf32>
  // CHECK: rlx.cos %{{.*}} : tensor<?x3xf32>
  %cos = rlx.cos %sin : tensor<?x3xf32>
  // CHECK: rlx.atan %{{.*}} : tensor<?x3xf32>
  %atan = rlx.atan %cos : tensor<?x3xf32>
  // CHECK: rlx.pad %{{.*}}, %{{.*}} {high = array<i64: 0, 1>, interior = array<i64: 0, 1>, low = array<i64: 0, 1>}
  %p = rlx.pad %x, %z {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 1>}
      : (tensor<?x3xf32>, tensor<f32>) -> tensor<?x7xf32>
  // CHECK: rlx.stop_gradient %{{.*}} : tensor<?x3xf32>
  %s = rlx.stop_gradient %atan : tensor<?x3xf32>
  return %e, %p, %s : tensor<?x3xf32>, tensor<?x7xf32>, tensor<?x3xf32>
}

func.func private @loss(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// CHECK-LABEL: func @markers
func.func @markers(%x: tensor<3xf32>, %t: tensor<3xf32>, %c: tensor<f32>) -> tensor<3xf32> {
  // CHECK: rlx.grad @loss(%{{.*}}) {wrt = array<i64: 0>, wrt_params = ["w"]} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %g:2 = rlx.grad @loss(%x) {wrt = array<i64: 0>, wrt_params = ["w"]} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  // CHECK: rlx.value_and_grad @loss(%{{.*}}) {wrt_params = "all"} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  %v:2 = rlx.value_and_grad @loss(%x) {wrt_params = "all"} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  // CHECK: rlx.vjp @loss(%{{.*}}) cotangents(%{{.*}}) {wrt = array<i64: 0>}
  %j:2 = rlx.vjp @loss(%x) cotangents(%c) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> (tensor<f32>, tensor<3xf32>)
  // CHECK: rlx.jvp @loss(%{{.*}}) tangents(%{{.*}}) {wrt = array<i64: 0>}
  %f:2 = rlx.jvp @loss(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
  // CHECK: rlx.hvp @loss(%{{.*}}) tangents(%{{.*}}) {wrt = array<i64: 0>}
  %h = rlx.hvp @loss(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %h : tensor<3xf32>
}

func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sq_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @sq_bwd(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  return %g : tensor<3xf32>
}
func.func private @sq_jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %x, %t : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func @custom_rules
func.func @custom_rules(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: rlx.custom_vjp @sq(%{{.*}}) {bwd = @sq_bwd, fwd = @sq_fwd} : (tensor<3xf32>) -> tensor<3xf32>
  %a = rlx.custom_vjp @sq(%x) {fwd = @sq_fwd, bwd = @sq_bwd} : (tensor<3xf32>) -> tensor<3xf32>
  // CHECK: rlx.custom_jvp @sq(%{{.*}}) {jvp = @sq_jvp} : (tensor<3xf32>) -> tensor<3xf32>
  %b = rlx.custom_jvp @sq(%a) {jvp = @sq_jvp} : (tensor<3xf32>) -> tensor<3xf32>
  // CHECK: rlx.remat @sq(%{{.*}}) : (tensor<3xf32>) -> tensor<3xf32>
  %c = rlx.remat @sq(%b) : (tensor<3xf32>) -> tensor<3xf32>
  // CHECK: rlx.optimization_barrier %{{.*}} : tensor<3xf32>
  %d = rlx.optimization_barrier %c : tensor<3xf32>
  return %d : tensor<3xf32>
}

// CHECK-LABEL: func @vmap_marker
func.func @vmap_marker(%xs: tensor<?x3xf32>) -> tensor<3x?xf32> {
  // CHECK: rlx.vmap @sq(%{{.*}}) {in_axes = [0], out_axes = array<i64: 1>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
  %ys = rlx.vmap @sq(%xs) {in_axes = [0], out_axes = array<i64: 1>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
  return %ys : tensor<3x?xf32>
}

func.func private @vec2(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func private @scal(%x: tensor<3xf64>) -> tensor<f64> {
  %s = rlx.sum %x {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}

// CHECK-LABEL: func @jacobian_markers
func.func @jacobian_markers(%x: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3x3xf64>) {
  // CHECK: rlx.jacfwd @vec2(%{{.*}}) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  %a = rlx.jacfwd @vec2(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  // CHECK: rlx.jacrev @vec2(%{{.*}}) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  %b = rlx.jacrev @vec2(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  // CHECK: rlx.hessian @scal(%{{.*}}) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<3x3xf64>
  %h = rlx.hessian @scal(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<3x3xf64>
  return %a, %b, %h : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3x3xf64>
}

// Several dynamic result dims pair with the operand's.
// CHECK-LABEL: func @reshape_paired_dynamic
func.func @reshape_paired_dynamic(%x: tensor<?x?xf32>, %y: tensor<?x?x4xf32>)
    -> (tensor<?x?x1xf32>, tensor<?x?x2x2xf32>) {
  // CHECK: rlx.reshape %{{.*}} : (tensor<?x?xf32>) -> tensor<?x?x1xf32>
  %a = rlx.reshape %x : (tensor<?x?xf32>) -> tensor<?x?x1xf32>
  // CHECK: rlx.reshape %{{.*}} : (tensor<?x?x4xf32>) -> tensor<?x?x2x2xf32>
  %b = rlx.reshape %y : (tensor<?x?x4xf32>) -> tensor<?x?x2x2xf32>
  return %a, %b : tensor<?x?x1xf32>, tensor<?x?x2x2xf32>
}

// int8 products accumulate in i32.
// CHECK-LABEL: func @int8_matmul
// CHECK: rlx.matmul %{{.*}}, %{{.*}} : (tensor<?x64xi8>, tensor<64x32xi8>) -> tensor<?x32xi32>
func.func @int8_matmul(%a: tensor<?x64xi8>, %b: tensor<64x32xi8>) -> tensor<?x32xi32> {
  %0 = rlx.matmul %a, %b : (tensor<?x64xi8>, tensor<64x32xi8>) -> tensor<?x32xi32>
  return %0 : tensor<?x32xi32>
}

// CHECK-LABEL: func @int8_conv
// CHECK: rlx.conv2d %{{.*}}, %{{.*}} {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<?x5x5x4xi8>, tensor<3x3x2x6xi8>) -> tensor<?x5x5x6xi32>
func.func @int8_conv(%x: tensor<?x5x5x4xi8>, %w: tensor<3x3x2x6xi8>) -> tensor<?x5x5x6xi32> {
  %0 = rlx.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<?x5x5x4xi8>, tensor<3x3x2x6xi8>) -> tensor<?x5x5x6xi32>
  return %0 : tensor<?x5x5x6xi32>
}
