// RUN: rlx-opt %s -split-input-file -rlx-reverse-mode | FileCheck %s

// value_and_grad: the forward sweep at the marker, its results first, then
// the adjoint of the param from a seed of one on the result.
// CHECK-LABEL: func @value_and_grad
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>)
// CHECK: %[[W:.+]] = rlx.param "w"
// CHECK: %[[M:.+]] = rlx.mul %[[X]], %[[W]]
// CHECK: %[[S:.+]] = rlx.sum %[[M]]
// CHECK: %[[SEED:.+]] = rlx.add
// CHECK: %[[G:.+]] = rlx.add
// CHECK: %[[GW:.+]] = rlx.mul %[[G]], %[[X]]
// CHECK: return %[[S]], %[[GW]]
// CHECK-NOT: rlx.value_and_grad
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @value_and_grad(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %r:2 = rlx.value_and_grad @f(%x) {wrt_params = ["w"]} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<3xf32>
}

// -----

// vjp: the cotangent is the seed; the input leaf gets a fresh identity.
// CHECK-LABEL: func @vjp
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>, %[[CT:.+]]: tensor<3xf32>)
// CHECK: %[[XI:.+]] = tensor.cast %[[X]]
// CHECK: %[[E:.+]] = rlx.exp %[[XI]]
// CHECK: %[[GX:.+]] = rlx.mul %[[CT]], %[[E]]
// CHECK: return %[[E]], %[[GX]]
func.func private @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %e = rlx.exp %x : tensor<3xf32>
  return %e : tensor<3xf32>
}
func.func @vjp(%x: tensor<3xf32>, %ct: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %r:2 = rlx.vjp @g(%x) cotangents(%ct) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Negative: a grad whose callee still calls a function holding a vmap is
// not ready; the vmap and the grad stay (rlx-autodiff expands the vmap in
// an earlier pass of the round). A jvp is not this pass's kind.
// CHECK-LABEL: func private @mapped
// CHECK: rlx.vmap @h
// CHECK-LABEL: func @not_ready
// CHECK: rlx.grad @outer
// CHECK: rlx.jvp @mapped
func.func private @h(%x: tensor<f32>) -> tensor<f32> {
  %e = rlx.exp %x : tensor<f32>
  return %e : tensor<f32>
}
func.func private @mapped(%xs: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.vmap @h(%xs) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @outer(%xs: tensor<3xf32>) -> tensor<f32> {
  %y = func.call @mapped(%xs) : (tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @not_ready(%xs: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g = rlx.grad @outer(%xs) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  %j:2 = rlx.jvp @mapped(%xs) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %g, %j#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Collectives: the adjoint of an all_reduce sum is an all_reduce sum of the
// adjoints; broadcast from root 1 sends the summed adjoint to replica 1
// only; all_gather's adjoint is a reduce_scatter.
// CHECK-LABEL: func @grad_collectives
// CHECK: %[[A:.+]] = rlx.all_gather
// CHECK: rlx.broadcast %[[A]] {axis = "i", root = 1 : i64}
// CHECK: %[[SEED:.+]] = rlx.add %{{.+}}, %{{.+}} : (tensor<4x3xf32>, tensor<1x1xf32>)
// CHECK: %[[S:.+]] = rlx.all_reduce %[[SEED]] {axis = "i", kind = "sum"}
// CHECK: %[[I:.+]] = rlx.axis_index {axis = "i"}
// CHECK: %[[ONE:.+]] = rlx.constant dense<1> : tensor<i32>
// CHECK: %[[ROOT:.+]] = rlx.compare "eq", %[[I]], %[[ONE]]
// CHECK: %[[Z:.+]] = rlx.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK: %[[B:.+]] = rlx.select %[[ROOT]], %[[S]], %[[Z]]
// CHECK: %[[G:.+]] = rlx.reduce_scatter %[[B]] {axis = "i", axis_size = 2 : i64, dim = 0 : i64} : (tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[G]]
func.func private @collectives(%x: tensor<2x3xf32>) -> tensor<f32> {
  %a = rlx.all_gather %x {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %b = rlx.broadcast %a {axis = "i", root = 1 : i64} : tensor<4x3xf32>
  %r = rlx.sum %b {axes = array<i64: 0, 1>} : (tensor<4x3xf32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @grad_collectives(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %g = rlx.grad @collectives(%x) {wrt = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @grad_all_reduce
// CHECK: %[[S:.+]] = rlx.all_reduce %[[X:.+]] {axis = "i", kind = "sum"}
// CHECK: %[[SEED:.+]] = rlx.add %{{.+}}, %{{.+}} : (tensor<4xf32>, tensor<1xf32>)
// CHECK: %[[T:.+]] = rlx.mul %[[SEED]], %[[X]]
// CHECK: %[[U:.+]] = rlx.mul %[[SEED]], %[[S]]
// CHECK: %[[V:.+]] = rlx.all_reduce %[[T]] {axis = "i", kind = "sum"}
// CHECK: rlx.add %[[U]], %[[V]]
func.func private @psum_times_x(%x: tensor<4xf32>) -> tensor<f32> {
  %s = rlx.all_reduce %x {axis = "i", kind = "sum"} : tensor<4xf32>
  %m = rlx.mul %s, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = rlx.sum %m {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @grad_all_reduce(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = rlx.grad @psum_times_x(%x) {wrt = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A conv's input gradient with many pixels: a 3x3 stride-2 window has two
// stride phases per dim (taps {2, 0} and {1}), so four convs of the output
// gradient by reversed taps, each spread into the input's positions
// (interior 1) and summed. No conv reads the padding's positions: the
// results are the input's 4x4 pixels or fewer. The zeros past the output
// gradient's end are each conv's own padding (bottom, right), not a copy.
// CHECK-LABEL: func @conv_grad_phases
// CHECK: rlx.conv2d {{.+}}strides = array<i64: 2, 2>
// CHECK-NOT: rlx.pad %arg2
// CHECK: %[[P00:.+]] = rlx.conv2d %{{[^ ]+}}, %{{[^ ]+}} {padding = array<i64: 0, 1, 0, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x2x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK: rlx.pad %[[P00]], %{{.+}} {high = array<i64: 0, 0, 0, 0>, interior = array<i64: 0, 1, 1, 0>, low = array<i64: 0, 1, 1, 0>}
// CHECK: rlx.conv2d %{{[^ ]+}}, %{{[^ ]+}} {padding = array<i64: 0, 1, 0, 0>} : (tensor<1x4x4x2xf32>, tensor<2x1x2x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK: rlx.conv2d %{{[^ ]+}}, %{{[^ ]+}} {padding = array<i64: 0, 0, 0, 1>} : (tensor<1x4x4x2xf32>, tensor<1x2x2x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK: rlx.conv2d %{{[^ ]+}}, %{{[^ ]+}} : (tensor<1x4x4x2xf32>, tensor<1x1x2x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK-NOT: rlx.conv2d
// CHECK: return
func.func private @conv_s2_wide(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x2xf32>) -> tensor<1x4x4x2xf32> {
  %y = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x16xf32>, tensor<3x3x16x2xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}
func.func @conv_grad_phases(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x2xf32>, %ct: tensor<1x4x4x2xf32>) -> tensor<1x8x8x16xf32> {
  %r:2 = rlx.vjp @conv_s2_wide(%x, %w) cotangents(%ct) {wrt = array<i64: 0>} : (tensor<1x8x8x16xf32>, tensor<3x3x16x2xf32>, tensor<1x4x4x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x8x8x16xf32>)
  return %r#1 : tensor<1x8x8x16xf32>
}

// -----

// The same window over 4 input channels (under 16): the input gradient is
// one product of the output gradient, padded once as far as any phase
// reads (one row and column past its end), by all nine taps (36 columns);
// each phase then sums those columns shifted by its taps: phase (0, 0)'s
// first tap (2, 2) is columns 32..35 from row 0 and column 0, its second
// (2, 0) columns 24..27 from column 1. Nine shifted slices in all, no
// conv. The filter gradient is one product of the nine windows side by
// side (36 rows), not one of 4 rows per window offset.
// CHECK-LABEL: func @conv_grad_tap_columns
// CHECK: rlx.conv2d {{.+}}strides = array<i64: 2, 2>
// CHECK-NOT: rlx.conv2d
// CHECK: %[[GP:.+]] = rlx.pad %arg2, %{{.+}} {high = array<i64: 0, 1, 1, 0>, interior = array<i64: 0, 0, 0, 0>, low = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x5x5x2xf32>
// CHECK: %[[TAPS:.+]] = rlx.reshape %{{.+}} : (tensor<3x3x4x2xf32>) -> tensor<36x2xf32>
// CHECK: %[[TAPS_T:.+]] = rlx.transpose %[[TAPS]] {{.+}} -> tensor<2x36xf32>
// CHECK: %[[ROWS:.+]] = rlx.reshape %[[GP]] : (tensor<1x5x5x2xf32>) -> tensor<25x2xf32>
// CHECK: %[[PRODUCT:.+]] = rlx.matmul %[[ROWS]], %[[TAPS_T]] : (tensor<25x2xf32>, tensor<2x36xf32>) -> tensor<25x36xf32>
// CHECK: %[[COLS:.+]] = rlx.reshape %[[PRODUCT]] : (tensor<25x36xf32>) -> tensor<1x5x5x36xf32>
// CHECK: rlx.slice %[[COLS]] {limit = array<i64: 1, 4, 4, 36>, start = array<i64: 0, 0, 0, 32>
// CHECK: rlx.slice %[[COLS]] {limit = array<i64: 1, 4, 5, 28>, start = array<i64: 0, 0, 1, 24>
// CHECK-COUNT-2: rlx.slice %[[COLS]]
// CHECK: interior = array<i64: 0, 1, 1, 0>, low = array<i64: 0, 1, 1, 0>
// CHECK-COUNT-5: rlx.slice %[[COLS]]
// CHECK-NOT: rlx.slice %[[COLS]]
// CHECK-NOT: rlx.conv2d
// CHECK: %[[WINDOWS:.+]] = rlx.concat {{.+}} {axis = 3 : i64} : ({{.+}}) -> tensor<1x4x4x36xf32>
// CHECK: %[[COLUMNS:.+]] = rlx.reshape %[[WINDOWS]] : (tensor<1x4x4x36xf32>) -> tensor<16x36xf32>
// CHECK: %[[WROWS:.+]] = rlx.transpose %[[COLUMNS]] {{.+}} -> tensor<36x16xf32>
// CHECK: %[[GW:.+]] = rlx.matmul %[[WROWS]], %{{.+}} : (tensor<36x16xf32>, tensor<16x2xf32>) -> tensor<36x2xf32>
// CHECK: rlx.reshape %[[GW]] : (tensor<36x2xf32>) -> tensor<3x3x4x2xf32>
// CHECK-NOT: rlx.matmul
// CHECK: return
func.func private @conv_s2(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %y = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}
func.func @conv_grad_tap_columns(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x2xf32>, %ct: tensor<1x4x4x2xf32>) -> (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) {
  %r:3 = rlx.vjp @conv_s2(%x, %w) cotangents(%ct) {wrt = array<i64: 0, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>, tensor<1x4x4x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>)
  return %r#1, %r#2 : tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>
}

// -----

// 16 input channels: the filter gradient per window offset, nine products
// of the offset's strided window (transposed) by the output gradient.
// CHECK-LABEL: func @conv_filter_grad_per_offset
// CHECK-NOT: rlx.concat {{.+}} -> tensor<1x4x4x144xf32>
// CHECK-COUNT-9: rlx.matmul %{{[^ ]+}}, %{{[^ ]+}} : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK-NOT: rlx.matmul
// CHECK: return
func.func private @conv_wide(%x: tensor<1x4x4x16xf32>, %w: tensor<3x3x16x8xf32>) -> tensor<1x4x4x8xf32> {
  %y = rlx.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x4x4x16xf32>, tensor<3x3x16x8xf32>) -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}
func.func @conv_filter_grad_per_offset(%x: tensor<1x4x4x16xf32>, %w: tensor<3x3x16x8xf32>, %ct: tensor<1x4x4x8xf32>) -> tensor<3x3x16x8xf32> {
  %r:2 = rlx.vjp @conv_wide(%x, %w) cotangents(%ct) {wrt = array<i64: 1>} : (tensor<1x4x4x16xf32>, tensor<3x3x16x8xf32>, tensor<1x4x4x8xf32>) -> (tensor<1x4x4x8xf32>, tensor<3x3x16x8xf32>)
  return %r#1 : tensor<3x3x16x8xf32>
}

// -----

// Fewer padded pixels (4x4) than twice the output channels (64): the input
// gradient per window offset (the output gradient times each offset's
// filter block), no conv of the gradient.
// CHECK-LABEL: func @conv_grad_per_offset
// CHECK: rlx.conv2d {{.+}}padding = array<i64: 1, 1, 1, 1>
// CHECK-NOT: rlx.conv2d
// CHECK-COUNT-9: rlx.matmul %{{[^ ]+}}, %{{[^ ]+}} : (tensor<1x2x2x32xf32>, tensor<32x4xf32>)
// CHECK-NOT: rlx.conv2d
// CHECK: return
func.func private @conv_few(%x: tensor<1x2x2x4xf32>, %w: tensor<3x3x4x32xf32>) -> tensor<1x2x2x32xf32> {
  %y = rlx.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x2x2x4xf32>, tensor<3x3x4x32xf32>) -> tensor<1x2x2x32xf32>
  return %y : tensor<1x2x2x32xf32>
}
func.func @conv_grad_per_offset(%x: tensor<1x2x2x4xf32>, %w: tensor<3x3x4x32xf32>, %ct: tensor<1x2x2x32xf32>) -> tensor<1x2x2x4xf32> {
  %r:2 = rlx.vjp @conv_few(%x, %w) cotangents(%ct) {wrt = array<i64: 0>} : (tensor<1x2x2x4xf32>, tensor<3x3x4x32xf32>, tensor<1x2x2x32xf32>) -> (tensor<1x2x2x32xf32>, tensor<1x2x2x4xf32>)
  return %r#1 : tensor<1x2x2x4xf32>
}
