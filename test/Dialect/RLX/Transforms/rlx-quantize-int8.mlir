// RUN: rlx-opt %s -rlx-quantize-int8 | FileCheck %s

// Dynamic: the activation's scale is its largest magnitude in this call;
// the weight's, per output column. The i32 product is rescaled by both.
// CHECK-LABEL: func @dynamic
// CHECK-DAG:   %[[W:.+]] = rlx.param "w" : tensor<64x32xf32>
// CHECK-DAG:   %[[WABS:.+]] = rlx.abs %[[W]] : tensor<64x32xf32>
// CHECK:       %[[WMAX:.+]] = rlx.max %[[WABS]] {axes = array<i64: 0>} : (tensor<64x32xf32>) -> tensor<32xf32>
// CHECK:       %[[WS0:.+]] = rlx.div %[[WMAX]], %{{.+}} : (tensor<32xf32>, tensor<f32>) -> tensor<32xf32>
// CHECK:       %[[WS:.+]] = rlx.maximum %[[WS0]], %{{.+}} : (tensor<32xf32>, tensor<f32>) -> tensor<32xf32>
// CHECK:       %[[WD:.+]] = rlx.div %[[W]], %[[WS]] : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
// CHECK:       %[[WQ:.+]] = rlx.cast %{{.+}} : tensor<64x32xf32> -> tensor<64x32xi8>
// CHECK:       %[[XABS:.+]] = rlx.abs %arg0 : tensor<?x64xf32>
// CHECK:       %[[XMAX:.+]] = rlx.max %[[XABS]] {axes = array<i64: 0, 1>} : (tensor<?x64xf32>) -> tensor<f32>
// CHECK:       %[[XS0:.+]] = rlx.div %[[XMAX]]
// CHECK:       %[[XS:.+]] = rlx.maximum %[[XS0]]
// CHECK:       %[[XD:.+]] = rlx.div %arg0, %[[XS]] : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
// CHECK:       %[[LO:.+]] = rlx.maximum %[[XD]], %{{.+}}
// CHECK:       %[[HI:.+]] = rlx.minimum %[[LO]], %{{.+}}
// CHECK:       %[[UP:.+]] = rlx.add %[[HI]], %[[SHIFT:.+]] : (tensor<?x64xf32>, tensor<f32>)
// CHECK:       %[[RND:.+]] = rlx.sub %[[UP]], %[[SHIFT]]
// CHECK:       %[[XQ:.+]] = rlx.cast %[[RND]] : tensor<?x64xf32> -> tensor<?x64xi8>
// CHECK:       %[[P:.+]] = rlx.matmul %[[XQ]], %[[WQ]] : (tensor<?x64xi8>, tensor<64x32xi8>) -> tensor<?x32xi32>
// CHECK:       %[[PF:.+]] = rlx.cast %[[P]] : tensor<?x32xi32> -> tensor<?x32xf32>
// CHECK:       %[[S:.+]] = rlx.mul %[[XS]], %[[WS]] : (tensor<f32>, tensor<32xf32>) -> tensor<32xf32>
// CHECK:       %[[Y:.+]] = rlx.mul %[[PF]], %[[S]] : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
// CHECK:       return %[[Y]]
func.func @dynamic(%x: tensor<?x64xf32>) -> tensor<?x32xf32> {
  %w = rlx.param "w" : tensor<64x32xf32>
  %y = rlx.matmul %x, %w : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// Calibrated: the recorded magnitude is a constant; nothing is measured.
// A weight computed from params (a transposed Gemm weight) is a weight.
// CHECK-LABEL: func @calibrated
// CHECK:       rlx.transpose
// CHECK-NOT:   rlx.abs %arg0
// CHECK:       %[[A:.+]] = rlx.constant dense<2.540000e+00> : tensor<f32>
// CHECK:       %[[XS0:.+]] = rlx.div %[[A]]
// CHECK:       %[[XS:.+]] = rlx.maximum %[[XS0]]
// CHECK:       rlx.div %arg0, %[[XS]] : (tensor<2x3x16xf32>, tensor<f32>)
// CHECK:       rlx.matmul %{{.+}}, %{{.+}} : (tensor<2x3x16xi8>, tensor<16x8xi8>) -> tensor<2x3x8xi32>
// CHECK-NOT:   rlx.activation_absmax
func.func @calibrated(%x: tensor<2x3x16xf32>) -> tensor<2x3x8xf32> {
  %wt = rlx.param "wt" : tensor<8x16xf32>
  %w = rlx.transpose %wt {permutation = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %y = rlx.matmul %x, %w {rlx.activation_absmax = 2.54 : f64} : (tensor<2x3x16xf32>, tensor<16x8xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// A conv: the filter per output channel (its last dim), zero padding kept.
// CHECK-LABEL: func @conv
// CHECK:       %[[K:.+]] = rlx.param "k" : tensor<3x3x2x8xf32>
// CHECK:       %[[KABS:.+]] = rlx.abs %[[K]]
// CHECK:       rlx.max %[[KABS]] {axes = array<i64: 0, 1, 2>} : (tensor<3x3x2x8xf32>) -> tensor<8xf32>
// CHECK:       %[[KQ:.+]] = rlx.cast %{{.+}} : tensor<3x3x2x8xf32> -> tensor<3x3x2x8xi8>
// CHECK:       rlx.max %{{.+}} {axes = array<i64: 0, 1, 2, 3>} : (tensor<?x9x9x2xf32>) -> tensor<f32>
// CHECK:       %[[XQ:.+]] = rlx.cast %{{.+}} : tensor<?x9x9x2xf32> -> tensor<?x9x9x2xi8>
// CHECK:       %[[P:.+]] = rlx.conv2d %[[XQ]], %[[KQ]] {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x9x9x2xi8>, tensor<3x3x2x8xi8>) -> tensor<?x5x5x8xi32>
// CHECK:       %[[PF:.+]] = rlx.cast %[[P]] : tensor<?x5x5x8xi32> -> tensor<?x5x5x8xf32>
// CHECK:       rlx.mul %[[PF]], %{{.+}} : (tensor<?x5x5x8xf32>, tensor<8xf32>) -> tensor<?x5x5x8xf32>
func.func @conv(%x: tensor<?x9x9x2xf32>) -> tensor<?x5x5x8xf32> {
  %k = rlx.param "k" : tensor<3x3x2x8xf32>
  %y = rlx.conv2d %x, %k {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<?x9x9x2xf32>, tensor<3x3x2x8xf32>) -> tensor<?x5x5x8xf32>
  return %y : tensor<?x5x5x8xf32>
}

// Left in f32: activation by activation, weight by weight, a weight on the
// left, a batched weight, f64, a contraction too long
// for an i32 sum, and a weight computed from an argument.
// CHECK-LABEL: func @untouched
// CHECK-NOT:   i8
// CHECK-NOT:   i32
func.func @untouched(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>, %d: tensor<4x8xf64>,
                     %long: tensor<1x133145xf32>, %s: tensor<f32>)
    -> (tensor<4x2xf32>, tensor<8x8xf32>, tensor<2x8xf32>, tensor<3x4x2xf32>, tensor<4x2xf64>, tensor<1x2xf32>, tensor<4x2xf32>) {
  %w = rlx.param "w" : tensor<8x2xf32>
  %wb = rlx.param "wb" : tensor<3x8x2xf32>
  %wd = rlx.param "wd" : tensor<8x2xf64>
  %wl = rlx.param "wl" : tensor<133145x2xf32>
  %a = rlx.matmul %x, %y : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %wt = rlx.transpose %w {permutation = array<i64: 1, 0>} : (tensor<8x2xf32>) -> tensor<2x8xf32>
  %b = rlx.matmul %w, %wt : (tensor<8x2xf32>, tensor<2x8xf32>) -> tensor<8x8xf32>
  %wleft = rlx.param "wleft" : tensor<2x4xf32>
  %c = rlx.matmul %wleft, %x : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %x3 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<3x4x8xf32>
  %e = rlx.matmul %x3, %wb : (tensor<3x4x8xf32>, tensor<3x8x2xf32>) -> tensor<3x4x2xf32>
  %f = rlx.matmul %d, %wd : (tensor<4x8xf64>, tensor<8x2xf64>) -> tensor<4x2xf64>
  %h = rlx.matmul %long, %wl : (tensor<1x133145xf32>, tensor<133145x2xf32>) -> tensor<1x2xf32>
  %ws = rlx.mul %w, %s : (tensor<8x2xf32>, tensor<f32>) -> tensor<8x2xf32>
  %i = rlx.matmul %x, %ws : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %a, %b, %c, %e, %f, %h, %i : tensor<4x2xf32>, tensor<8x8xf32>, tensor<2x8xf32>, tensor<3x4x2xf32>, tensor<4x2xf64>, tensor<1x2xf32>, tensor<4x2xf32>
}
