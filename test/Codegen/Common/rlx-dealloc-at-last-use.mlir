// RUN: rlx-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(rlx-dealloc-at-last-use))' | FileCheck %s

// Each temporary is freed right after its last use (through a view), not
// at the end of the block.
// CHECK-LABEL: func @chain
// CHECK: %[[A:.+]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.fill {{.*}} outs(%[[A]]
// CHECK: %[[V:.+]] = memref.expand_shape %[[A]]
// CHECK: %[[B:.+]] = memref.alloc() : memref<2x2xf32>
// CHECK: memref.copy %[[V]], %[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: %[[C:.+]] = memref.alloc() : memref<2x2xf32>
// CHECK: memref.copy %[[B]], %[[C]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK: return %[[C]]
func.func @chain() -> memref<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%z : f32) outs(%a : memref<4xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  %b = memref.alloc() : memref<2x2xf32>
  memref.copy %v, %b : memref<2x2xf32> to memref<2x2xf32>
  %c = memref.alloc() : memref<2x2xf32>
  memref.copy %b, %c : memref<2x2xf32> to memref<2x2xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<2x2xf32>
  return %c : memref<2x2xf32>
}

// -----

// Negative: a buffer used inside a nested region stays freed after that op,
// and a dealloc of a function argument is not moved.
// CHECK-LABEL: func @nested
// CHECK: scf.if
// CHECK: }
// CHECK-NEXT: memref.dealloc %{{.+}} : memref<4xf32>
// CHECK: memref.dealloc %arg1
func.func @nested(%c: i1, %arg1: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  scf.if %c {
    linalg.fill ins(%z : f32) outs(%a : memref<4xf32>)
  }
  %u = arith.constant 1.0 : f32
  linalg.fill ins(%u : f32) outs(%arg1 : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %arg1 : memref<4xf32>
  return
}
