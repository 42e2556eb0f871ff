// RUN: rlx-opt %s -split-input-file -rlx-lower-collectives | FileCheck %s
// RUN: not rlx-opt %s -split-input-file -rlx-lower-collectives=target=vulkan 2>&1 | FileCheck %s --check-prefix=GPU

// An all_reduce: 1-D views of the operand's buffer and a fresh result
// buffer, a start with kind 256 (RLX_COLLECTIVE_START | sum), dtype 2 (f32),
// the count and arg 0; before the result is read, a wait (kind 8) on the
// same buffers.
// CHECK-LABEL: func.func private @rlx_collective_f32(i32, i32, memref<?xf32>, memref<?xf32>, i64, i64)
// CHECK-LABEL: func @all_reduce
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: %[[IN:.+]] = bufferization.to_buffer %[[X]] read_only : tensor<2x3xf32> to memref<2x3xf32>
// CHECK: %[[IN1:.+]] = memref.collapse_shape %[[IN]] {{\[}}[0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK: %[[INV:.+]] = memref.cast %[[IN1]] : memref<6xf32> to memref<?xf32>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<2x3xf32>
// CHECK: %[[OUT1:.+]] = memref.collapse_shape %[[OUT]]
// CHECK: %[[OUTV:.+]] = memref.cast %[[OUT1]]
// CHECK: %[[N:.+]] = memref.dim %[[INV]]
// CHECK: %[[COUNT:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[ARG:.+]] = arith.constant 0 : i64
// CHECK: %[[KIND:.+]] = arith.constant 256 : i32
// CHECK: %[[DTYPE:.+]] = arith.constant 2 : i32
// CHECK: call @rlx_collective_f32(%[[KIND]], %[[DTYPE]], %[[INV]], %[[OUTV]], %[[COUNT]], %[[ARG]])
// CHECK: %[[WAIT:.+]] = arith.constant 8 : i32
// CHECK: %[[DTYPE2:.+]] = arith.constant 2 : i32
// CHECK: call @rlx_collective_f32(%[[WAIT]], %[[DTYPE2]], %[[INV]], %[[OUTV]], %[[COUNT]], %[[ARG]])
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x3xf32> to tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @all_reduce(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = rlx.all_reduce %x {axis = "i", kind = "sum"} : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// A gather along dim 1: the dim moves to the front and back; kind 4 (260
// started), the axis size as arg, the block (the operand's) as count.
// CHECK-LABEL: func @all_gather_dim1
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf64>)
// CHECK: %[[T:.+]] = rlx.transpose %[[X]] {permutation = array<i64: 1, 0>} : (tensor<2x3xf64>) -> tensor<3x2xf64>
// CHECK: bufferization.to_buffer %[[T]] read_only
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<6x2xf64>
// CHECK: %[[ARG:.+]] = arith.constant 2 : i64
// CHECK: %[[KIND:.+]] = arith.constant 260 : i32
// CHECK: %[[DTYPE:.+]] = arith.constant 3 : i32
// CHECK: call @rlx_collective_f64(%[[KIND]], %[[DTYPE]], %{{.+}}, %{{.+}}, %{{.+}}, %[[ARG]])
// CHECK: call @rlx_collective_f64
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]]
// CHECK: %[[B:.+]] = rlx.transpose %[[R]] {permutation = array<i64: 1, 0>} : (tensor<6x2xf64>) -> tensor<2x6xf64>
// CHECK: return %[[B]]
func.func @all_gather_dim1(%x: tensor<2x3xf64>) -> tensor<2x6xf64> {
  %g = rlx.all_gather %x {axis = "i", dim = 1 : i64, axis_size = 2 : i64} : (tensor<2x3xf64>) -> tensor<2x6xf64>
  return %g : tensor<2x6xf64>
}

// -----

// A dynamic dim: the result buffer is sized from the operand's; the
// scatter's count is the result's (its block).
// CHECK-LABEL: func @reduce_scatter_dynamic
// CHECK: %[[IN:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<?x4xi32> to memref<?x4xi32>
// CHECK: %[[D:.+]] = memref.dim %[[IN]], %{{.+}} : memref<?x4xi32>
// CHECK: %[[TWO:.+]] = arith.constant 2 : index
// CHECK: %[[HALF:.+]] = arith.divui %[[D]], %[[TWO]]
// CHECK: %[[OUT:.+]] = memref.alloc(%[[HALF]]) : memref<?x4xi32>
// CHECK: %[[OUTV:.+]] = memref.cast
// CHECK: memref.dim %[[OUTV]]
// CHECK: arith.constant 261 : i32
// CHECK: arith.constant 6 : i32
// CHECK: call @rlx_collective_i32
func.func @reduce_scatter_dynamic(%x: tensor<?x4xi32>) -> tensor<?x4xi32> {
  %r = rlx.reduce_scatter %x {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<?x4xi32>) -> tensor<?x4xi32>
  return %r : tensor<?x4xi32>
}

// -----

// axis_index writes one i32 into a buffer of one, in one call (nothing to
// wait for); broadcast passes its root.
// CHECK-LABEL: func @axis_index_broadcast
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<1xi32>
// CHECK: arith.constant 7 : i32
// CHECK: call @rlx_collective_i32
// CHECK-NEXT: %[[I:.+]] = bufferization.to_tensor %[[OUT]]
// CHECK: rlx.reshape %[[I]] : (tensor<1xi32>) -> tensor<i32>
// CHECK: %[[ROOT:.+]] = arith.constant 1 : i64
// CHECK: arith.constant 262 : i32
// CHECK: call @rlx_collective_f32(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ROOT]])
// CHECK: arith.constant 8 : i32
// CHECK: call @rlx_collective_f32(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ROOT]])
func.func @axis_index_broadcast(%x: tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
  %i = rlx.axis_index {axis = "i"} : tensor<i32>
  %b = rlx.broadcast %x {axis = "i", root = 1 : i64} : tensor<3xf32>
  return %i, %b : tensor<i32>, tensor<3xf32>
}

// -----

// Overlap: the start moves up, with the light op computing its operand
// (the reshape), to just after the transpose that op reads, which itself
// stays (compute keeps its order); so the second matmul runs between start
// and wait. The exp reading the result moves down to just before the add
// that reads it, and the wait stays before the exp.
// CHECK-LABEL: func @overlap
// CHECK: rlx.matmul
// CHECK-NEXT: rlx.transpose
// CHECK-NEXT: rlx.reshape
// CHECK: arith.constant 257 : i32
// CHECK: call @rlx_collective_f32
// CHECK: rlx.matmul
// CHECK: arith.constant 8 : i32
// CHECK: call @rlx_collective_f32
// CHECK: bufferization.to_tensor
// CHECK: rlx.exp
// CHECK: rlx.add
func.func @overlap(%g: tensor<2x2xf32>, %a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> (tensor<4xf32>, tensor<8x8xf32>) {
  %m = rlx.matmul %a, %b : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = rlx.transpose %g {permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %m2 = rlx.matmul %m, %b : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %n = rlx.reshape %t : (tensor<2x2xf32>) -> tensor<4xf32>
  %s = rlx.all_reduce %n {axis = "i", kind = "mean"} : tensor<4xf32>
  %e = rlx.exp %s : tensor<4xf32>
  %m3 = rlx.matmul %m2, %b : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = rlx.add %e, %n : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y, %m3 : tensor<4xf32>, tensor<8x8xf32>
}

// -----

// Two collectives keep their order, and a start stays after an op with side
// effects before it (the print); the wait for one whose operand is read
// again later (by the mul) goes before that read, which could otherwise
// reuse the buffer the collective still reads.
// CHECK-LABEL: func @order
// CHECK: arith.constant 256 : i32
// CHECK: call @rlx_collective_f32
// CHECK: vector.print
// CHECK: arith.constant 257 : i32
// CHECK: call @rlx_collective_f32
// CHECK: arith.constant 8 : i32
// CHECK: call @rlx_collective_f32
// CHECK: rlx.mul
func.func @order(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = rlx.all_reduce %x {axis = "i", kind = "sum"} : tensor<4xf32>
  %c = arith.constant 1.0 : f32
  vector.print %c : f32
  %b = rlx.all_reduce %y {axis = "i", kind = "mean"} : tensor<4xf32>
  %p = rlx.mul %y, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %a, %b, %p : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A block without a terminator (the module's own): the wait goes before the
// next reader of the operand, and with none right after the start.
// CHECK-LABEL: module
// CHECK: arith.constant 256 : i32
// CHECK: call @rlx_collective_f32
// CHECK: arith.constant 8 : i32
// CHECK: call @rlx_collective_f32
// CHECK: rlx.neg
// CHECK: arith.constant 257 : i32
// CHECK: call @rlx_collective_f32
// CHECK: arith.constant 8 : i32
// CHECK: call @rlx_collective_f32
// CHECK-NEXT: bufferization.to_tensor
// CHECK-NEXT: }
%x = rlx.constant dense<1.0> : tensor<3xf32>
%s = rlx.all_reduce %x {axis = "i", kind = "sum"} : tensor<3xf32>
%y = rlx.neg %x : tensor<3xf32>
%m = rlx.all_reduce %y {axis = "i", kind = "mean"} : tensor<3xf32>

// -----

// GPU: error: 'rlx.all_reduce' op is not supported on target 'vulkan' yet (collectives run on the CPU target only)
func.func @gpu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = rlx.all_reduce %x {axis = "i", kind = "sum"} : tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

// Negative: nothing to do without collectives.
// CHECK-LABEL: func @none
// CHECK-NOT: rlx_collective
func.func @none(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
