// RUN: rlx-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: func @neutral_elements
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @neutral_elements(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %zero = rlx.constant dense<0.0> : tensor<4xf32>
  %one = rlx.constant dense<1.0> : tensor<f32>
  %a = rlx.add %x, %zero : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %s = rlx.sub %x, %zero : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %m = rlx.mul %one, %x : (tensor<f32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %d = rlx.div %x, %one : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %a, %s, %m, %d : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// Negative: adding zeros that broadcast x to a larger shape is not x.
// CHECK-LABEL: func @neutral_but_broadcasting
// CHECK: rlx.add
func.func @neutral_but_broadcasting(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  %zero = rlx.constant dense<0.0> : tensor<3x4xf32>
  %a = rlx.add %x, %zero : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %a : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func @constant_folding
// CHECK-DAG: %[[A:.+]] = rlx.constant dense<[4.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[B:.+]] = rlx.constant dense<[-3, -8]> : tensor<2xi32>
// CHECK: return %[[A]], %[[B]]
func.func @constant_folding() -> (tensor<2xf32>, tensor<2xi32>) {
  %a = rlx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = rlx.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %s = rlx.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %i = rlx.constant dense<[1, 2]> : tensor<2xi32>
  %j = rlx.constant dense<[3, 4]> : tensor<2xi32>
  %p = rlx.mul %i, %j : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %n = rlx.neg %p : tensor<2xi32>
  return %s, %n : tensor<2xf32>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func @involutions
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]]
func.func @involutions(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %n = rlx.neg %x : tensor<?x4xf32>
  %nn = rlx.neg %n : tensor<?x4xf32>
  %t = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
  %tt = rlx.transpose %t {permutation = array<i64: 1, 0>} : (tensor<4x?xf32>) -> tensor<?x4xf32>
  %c = rlx.cast %x : tensor<?x4xf32> -> tensor<?x4xf32>
  return %nn, %tt, %c : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// Two transposes compose into one; two reshapes into one.
// CHECK-LABEL: func @chains
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.+]] = rlx.transpose %[[X]] {permutation = array<i64: 2, 1, 0>}
// CHECK: %[[R:.+]] = rlx.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK: return %[[T]], %[[R]]
func.func @chains(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<4x6xf32>) {
  %t1 = rlx.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %t2 = rlx.transpose %t1 {permutation = array<i64: 2, 0, 1>} : (tensor<3x2x4xf32>) -> tensor<4x3x2xf32>
  %r1 = rlx.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %r2 = rlx.reshape %r1 : (tensor<24xf32>) -> tensor<4x6xf32>
  return %t2, %r2 : tensor<4x3x2xf32>, tensor<4x6xf32>
}

// -----

// Reshaping a constant folds; broadcasting a splat folds.
// CHECK-LABEL: func @constant_shapes
// CHECK-DAG: rlx.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: rlx.constant dense<5.000000e-01> : tensor<3x4xf32>
// CHECK-NOT: rlx.reshape
// CHECK-NOT: rlx.broadcast_in_dim
func.func @constant_shapes() -> (tensor<2x2xf32>, tensor<3x4xf32>) {
  %c = rlx.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = rlx.reshape %c : (tensor<4xf32>) -> tensor<2x2xf32>
  %h = rlx.constant dense<0.5> : tensor<4xf32>
  %b = rlx.broadcast_in_dim %h {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<3x4xf32>
  return %r, %b : tensor<2x2xf32>, tensor<3x4xf32>
}

// -----

// Negative: a dynamic reshape chain keeps one reshape; x / 2 stays.
// CHECK-LABEL: func @kept
// CHECK: rlx.reshape
// CHECK: rlx.div
func.func @kept(%x: tensor<?x6xf32>) -> (tensor<?x3xf32>, tensor<?x6xf32>) {
  %r = rlx.reshape %x : (tensor<?x6xf32>) -> tensor<?x3xf32>
  %two = rlx.constant dense<2.0> : tensor<f32>
  %d = rlx.div %x, %two : (tensor<?x6xf32>, tensor<f32>) -> tensor<?x6xf32>
  return %r, %d : tensor<?x3xf32>, tensor<?x6xf32>
}

// -----

// The zeros autodiff builds for dynamic shapes, select(false, x, 0), vanish
// when added; a select on a constant condition picks its operand.
// CHECK-LABEL: func @zero_like
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>, %[[Y:.+]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[Y]], %[[X]]
func.func @zero_like(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %no = rlx.constant dense<false> : tensor<i1>
  %yes = rlx.constant dense<true> : tensor<i1>
  %zero = rlx.constant dense<0.0> : tensor<f32>
  %z = rlx.select %no, %x, %zero : (tensor<i1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %a = rlx.add %z, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = rlx.select %yes, %x, %y : (tensor<i1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %a, %s : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// Zero pads of abutting pieces along one dim add up to their concatenation
// (the adjoint of a tensor sliced into parts: one copy, no fill or add).
// CHECK-LABEL: func @abutting_pads
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x3xf32>, %[[C:.+]]: tensor<2x2xf32>)
// CHECK: %[[BC:.+]] = rlx.concat %[[B]], %[[C]] {axis = 1 : i64}
// CHECK: %[[ABC:.+]] = rlx.concat %[[A]], %[[BC]] {axis = 1 : i64}
// CHECK-NOT: rlx.pad
// CHECK-NOT: rlx.add
// CHECK: return %[[ABC]]
func.func @abutting_pads(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x2xf32>) -> tensor<2x8xf32> {
  %z = rlx.constant dense<0.0> : tensor<f32>
  %pa = rlx.pad %a, %z {low = array<i64: 0, 0>, high = array<i64: 0, 5>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %pb = rlx.pad %b, %z {low = array<i64: 0, 3>, high = array<i64: 0, 2>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %pc = rlx.pad %c, %z {low = array<i64: 0, 6>, high = array<i64: 0, 0>, interior = array<i64: 0, 0>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x8xf32>
  %s = rlx.add %pc, %pb : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = rlx.add %s, %pa : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %t : tensor<2x8xf32>
}

// -----

// Pieces with a gap between them, or a nonzero padding value, stay.
// CHECK-LABEL: func @gap_stays
// CHECK: rlx.add
// CHECK-LABEL: func @nonzero_padding_stays
// CHECK: rlx.add
func.func @gap_stays(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x8xf32> {
  %z = rlx.constant dense<0.0> : tensor<f32>
  %pa = rlx.pad %a, %z {low = array<i64: 0, 0>, high = array<i64: 0, 5>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %pb = rlx.pad %b, %z {low = array<i64: 0, 4>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %s = rlx.add %pa, %pb : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}
func.func @nonzero_padding_stays(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %one = rlx.constant dense<1.0> : tensor<f32>
  %z = rlx.constant dense<0.0> : tensor<f32>
  %pa = rlx.pad %a, %one {low = array<i64: 0, 0>, high = array<i64: 0, 5>, interior = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x8xf32>
  %pb = rlx.pad %b, %z {low = array<i64: 0, 3>, high = array<i64: 0, 0>, interior = array<i64: 0, 0>} : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x8xf32>
  %s = rlx.add %pa, %pb : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}

// -----

// Integer splats fold as integers (a splat read as a float read far past
// the attribute; found by fuzz.mlir).
// CHECK-LABEL: func.func @integer_splat_folds
// CHECK: %[[C:.+]] = rlx.constant dense<-8> : tensor<2xi32>
// CHECK: return %[[C]]
func.func @integer_splat_folds() -> tensor<2xi32> {
  %i = rlx.constant dense<[2, 2]> : tensor<2xi32>
  %j = rlx.constant dense<[4, 4]> : tensor<2xi32>
  %p = rlx.mul %i, %j : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %n = rlx.neg %p : tensor<2xi32>
  return %n : tensor<2xi32>
}
