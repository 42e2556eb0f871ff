// RUN: rlx-opt %s -pass-pipeline='builtin.module(func.func(rlx-plan-workspace),rlx-cpu-vectorize-matmul,func.func(rlx-materialize-workspace))' | FileCheck %s

// A static matmul into a temporary: the kernel is built on the plain buffer
// (its C tile carried through the K loop in registers), then the buffer
// becomes a view of the arena. Views made first kept the tile in memory.
// CHECK-LABEL: func @matmul_into_temporary
// CHECK: %[[ARENA:.+]] = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
// CHECK: %[[VIEW:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<8192xi8> to memref<64x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %{{.+}}) -> (vector<8x32xf32>)
// CHECK: vector.transfer_write {{.*}}, %[[VIEW]]
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return
func.func @matmul_into_temporary(%a: memref<64x64xf32>, %b: memref<64x32xf32>) -> memref<64x32xf32> {
  %t = memref.alloc() : memref<64x32xf32>
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%t : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%t : memref<64x32xf32>)
  %out = memref.alloc() : memref<64x32xf32>
  memref.copy %t, %out : memref<64x32xf32> to memref<64x32xf32>
  memref.dealloc %t : memref<64x32xf32>
  return %out : memref<64x32xf32>
}
