// RUN: rlx-opt %s -split-input-file -rlx-insert-debug-checks | FileCheck %s

// A float result: one reduction to a code (3 NaN, 2 +inf, 1 -inf, 0
// finite; the largest wins), then an assert per kind naming the op's
// file:line:col and the op.
// CHECK-LABEL: func.func @float_op
// CHECK: %[[Y:.+]] = rlx.log %{{.+}} : tensor<?x4xf32>
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<i32>) -> tensor<i32>
// CHECK: %[[CODES:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "reduction"]} ins(%[[Y]] : tensor<?x4xf32>) outs(%[[ZERO]] : tensor<i32>)
// CHECK: arith.cmpf uno
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: %[[WORST:.+]] = arith.maxsi
// CHECK: linalg.yield %[[WORST]] : i32
// CHECK: %[[CODE:.+]] = tensor.extract %[[CODES]][] : tensor<i32>
// CHECK: %[[NAN:.+]] = arith.cmpi ne, %[[CODE]], %c3_i32
// CHECK: cf.assert %[[NAN]], "model.mlir:14:9: rlx.log produced a NaN"
// CHECK: %[[POS:.+]] = arith.cmpi ne, %[[CODE]], %c2_i32
// CHECK: cf.assert %[[POS]], "model.mlir:14:9: rlx.log produced +inf"
// CHECK: %[[NEG:.+]] = arith.cmpi ne, %[[CODE]], %c1_i32
// CHECK: cf.assert %[[NEG]], "model.mlir:14:9: rlx.log produced -inf"
// CHECK: return %[[Y]]
func.func @float_op(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = rlx.log %x : tensor<?x4xf32> loc("model.mlir":14:9)
  return %y : tensor<?x4xf32>
}

// -----

// A scalar result is reduced over no dims; f16 compares with f16 infinities.
// The location inside a name or call site is still found.
// CHECK-LABEL: func.func @scalar_f16
// CHECK: linalg.generic {{.+}} iterator_types = []} ins(%{{.+}} : tensor<f16>)
// CHECK: arith.constant 0x7C00 : f16
// CHECK: arith.constant 0xFC00 : f16
// CHECK: cf.assert %{{.+}}, "model.mlir:3:5: rlx.exp produced a NaN"
func.func @scalar_f16(%x: tensor<f16>) -> tensor<f16> {
  %y = rlx.exp %x : tensor<f16> loc(#named)
  return %y : tensor<f16>
}
#named = loc("layer1"("model.mlir":3:5))

// -----

// Negative: integer results and constants are not checked.
// CHECK-LABEL: func.func @integer_and_constant
// CHECK-NOT: linalg.generic
// CHECK-NOT: cf.assert
// CHECK: return
func.func @integer_and_constant(%i: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xf32>) {
  %j = rlx.add %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %c = rlx.constant dense<1.0> : tensor<4xf32>
  return %j, %c : tensor<4xi32>, tensor<4xf32>
}

// -----

// Negative: ops of other dialects are not checked (only rlx ops are named
// in the messages).
// CHECK-LABEL: func.func @not_rlx
// CHECK-NOT: cf.assert
// CHECK: return
func.func @not_rlx(%x: tensor<4xf32>) -> tensor<?xf32> {
  %y = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// Without a file location the message names the op alone; a check in a
// loop body sits right after its op, in the body.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK: rlx.sqrt
// CHECK: cf.assert %{{.+}}, "rlx.sqrt produced a NaN"
// CHECK: scf.yield
func.func @in_loop(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<4xf32> {
    %s = rlx.sqrt %a : tensor<4xf32> loc(unknown)
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
