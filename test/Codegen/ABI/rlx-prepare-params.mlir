// RUN: rlx-opt %s -split-input-file -rlx-prepare-params | FileCheck %s

// What the weights alone determine (a transposed weight, a scaled bias)
// moves to a prepare function returning it; the entry point reads it back
// as a param of a reserved name. A weight only reshaped stays (nothing to
// save), and what reads an input stays.

// CHECK-LABEL: func.func @linear
// CHECK-SAME: attributes {rlx.prepare = "linear__prepare_params"}
// CHECK-DAG: %[[WT:.+]] = rlx.param "rlx.prepared/linear/0" : tensor<3x2xf32>
// CHECK-DAG: %[[B2:.+]] = rlx.param "rlx.prepared/linear/1" : tensor<2xf32>
// CHECK: %[[M:.+]] = rlx.matmul %{{.*}}, %[[WT]]
// CHECK: %[[A:.+]] = rlx.add %[[M]], %[[B2]]
// CHECK: %[[R:.+]] = rlx.param "r" : tensor<4x2xf32>
// CHECK: %[[RR:.+]] = rlx.reshape %[[R]]
// CHECK: %[[RB:.+]] = rlx.reshape %[[RR]]
// CHECK: rlx.add %[[A]], %[[RB]]
// CHECK-NOT: rlx.transpose
// CHECK: func.func @linear__prepare_params() -> (tensor<3x2xf32> {rlx.name = "rlx.prepared/linear/0"}, tensor<2xf32> {rlx.name = "rlx.prepared/linear/1"})
// CHECK: %[[W:.+]] = rlx.param "w" : tensor<2x3xf32>
// CHECK: %[[T:.+]] = rlx.transpose %[[W]]
// CHECK: %[[B:.+]] = rlx.param "b" : tensor<2xf32>
// CHECK: %[[S:.+]] = rlx.mul %[[B]], %{{.*}}
// CHECK: return %[[T]], %[[S]]
func.func @linear(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = rlx.param "w" : tensor<2x3xf32>
  %wt = rlx.transpose %w {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %m = rlx.matmul %x, %wt : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %b = rlx.param "b" : tensor<2xf32>
  %two = rlx.constant dense<2.0> : tensor<2xf32>
  %b2 = rlx.mul %b, %two : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %a = rlx.add %m, %b2 : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %r = rlx.param "r" : tensor<4x2xf32>
  %rr = rlx.reshape %r : (tensor<4x2xf32>) -> tensor<8xf32>
  %rb = rlx.reshape %rr : (tensor<8xf32>) -> tensor<4x2xf32>
  %y = rlx.add %a, %rb : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Nothing computed from weights alone: the function is left as it is, no
// prepare function.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: rlx.prepare
// CHECK-NOT: __prepare_params
func.func @plain(%x: tensor<3xf32>) -> tensor<3xf32> {
  %w = rlx.param "w" : tensor<3xf32>
  %y = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// A weight-only value read inside a loop (where loop-invariant code motion
// left it, outside the body) is prepared too.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: attributes {rlx.prepare = "loop__prepare_params"}
// CHECK: %[[WT:.+]] = rlx.param "rlx.prepared/loop/0" : tensor<3x3xf32>
// CHECK: scf.for
// CHECK: rlx.matmul %{{.*}}, %[[WT]]
// CHECK: func.func @loop__prepare_params()
// CHECK: rlx.transpose
func.func @loop(%x: tensor<2x3xf32>, %n: index) -> tensor<2x3xf32> {
  %w = rlx.param "w" : tensor<3x3xf32>
  %wt = rlx.transpose %w {permutation = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x) -> (tensor<2x3xf32>) {
    %m = rlx.matmul %h, %wt : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    scf.yield %m : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// -----

// A packed weight (rlx-pack-dot-operands) is prepared; its unpack stays
// beside the matmul, which reads the packed param through it.
// CHECK-LABEL: func.func @packed
// CHECK:         %[[P:.+]] = rlx.param "rlx.prepared/packed/0" : tensor<1x2x128xi8>
// CHECK:         %[[U:.+]] = rlx.unpack_dot_operand %[[P]]
// CHECK:         rlx.matmul %arg0, %[[U]]
// CHECK:       func.func @packed__prepare_params() -> (tensor<1x2x128xi8> {rlx.name = "rlx.prepared/packed/0"})
// CHECK:         rlx.pack_dot_operand
// CHECK-NOT:     rlx.unpack_dot_operand
func.func @packed(%x: tensor<?x8xi8>) -> tensor<?x32xi32> {
  %w = rlx.param "w" : tensor<8x32xi8>
  %p = rlx.pack_dot_operand %w : (tensor<8x32xi8>) -> tensor<1x2x128xi8>
  %u = rlx.unpack_dot_operand %p : (tensor<1x2x128xi8>) -> tensor<8x32xi8>
  %0 = rlx.matmul %x, %u : (tensor<?x8xi8>, tensor<8x32xi8>) -> tensor<?x32xi32>
  return %0 : tensor<?x32xi32>
}
