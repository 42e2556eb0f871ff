// RUN: rlx-opt %s -split-input-file -convert-rlx-to-linalg | FileCheck %s

// ui8 ... ui64 are read and written by rlx.cast only; after the conversion
// every type is signless (the function's too) and no bitcast is left.

// CHECK-LABEL: func.func @from_unsigned
// CHECK-SAME: (%[[X:.+]]: tensor<?xi8>) -> (tensor<?xi32>, tensor<?xf32>)
// CHECK-NOT: tensor.bitcast
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<?xi8>)
// CHECK: arith.extui %{{.+}} : i8 to i32
// CHECK: linalg.generic
// CHECK: arith.uitofp %{{.+}} : i8 to f32
// CHECK-NOT: ui8
func.func @from_unsigned(%x: tensor<?xui8>) -> (tensor<?xi32>, tensor<?xf32>) {
  %i = rlx.cast %x : tensor<?xui8> -> tensor<?xi32>
  %f = rlx.cast %x : tensor<?xui8> -> tensor<?xf32>
  return %i, %f : tensor<?xi32>, tensor<?xf32>
}

// -----

// To unsigned: integers truncate; floats go through i64 (so that -1.0 is
// 255 as in NumPy); ui64 converts values of 2^63 and more as unsigned.
// CHECK-LABEL: func.func @to_unsigned
// CHECK-SAME: -> (tensor<4xi16>, tensor<4xi8>, tensor<4xi64>)
// CHECK: arith.trunci %{{.+}} : i32 to i16
// CHECK: arith.fptosi %{{.+}} : f32 to i64
// CHECK-NEXT: arith.trunci %{{.+}} : i64 to i8
// CHECK: arith.cmpf oge
// CHECK: arith.fptoui %{{.+}} : f32 to i64
// CHECK: arith.select
// CHECK-NOT: tensor.bitcast
func.func @to_unsigned(%i: tensor<4xi32>, %f: tensor<4xf32>) -> (tensor<4xui16>, tensor<4xui8>, tensor<4xui64>) {
  %a = rlx.cast %i : tensor<4xi32> -> tensor<4xui16>
  %b = rlx.cast %f : tensor<4xf32> -> tensor<4xui8>
  %c = rlx.cast %f : tensor<4xf32> -> tensor<4xui64>
  return %a, %b, %c : tensor<4xui16>, tensor<4xui8>, tensor<4xui64>
}

// -----

// Between unsigned types: zero extension; a signed source sign-extends
// first (int8 -1 is 65535 as uint16, as in NumPy).
// CHECK-LABEL: func.func @between
// CHECK: arith.extui %{{.+}} : i8 to i16
// CHECK: arith.extsi %{{.+}} : i8 to i16
func.func @between(%u: tensor<2xui8>, %s: tensor<2xi8>) -> (tensor<2xui16>, tensor<2xui16>) {
  %a = rlx.cast %u : tensor<2xui8> -> tensor<2xui16>
  %b = rlx.cast %s : tensor<2xi8> -> tensor<2xui16>
  return %a, %b : tensor<2xui16>, tensor<2xui16>
}

// -----

// A value passed through unchanged becomes signless at both ends.
// CHECK-LABEL: func.func @passthrough
// CHECK-SAME: (%[[X:.+]]: tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT: return %[[X]] : tensor<3xi32>
func.func @passthrough(%x: tensor<3xui32>) -> tensor<3xui32> {
  return %x : tensor<3xui32>
}
