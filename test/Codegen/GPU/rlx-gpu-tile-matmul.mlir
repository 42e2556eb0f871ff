// RUN: rlx-opt %s -rlx-gpu-tile-matmul="tile=16 outputs-per-thread=4" | FileCheck %s

// A matmul becomes one launch of 16 x 16 threads per 64 x 64 tile of C
// (grid ceil(N/64) x ceil(M/64)); per step of 16 along K the threads stage
// a 64 x 16 tile of A and a 16 x 64 tile of B in workgroup memory (4
// elements each) between barriers; each thread carries 4 x 4 accumulators
// and adds them to C (linalg.matmul accumulates), guarded at the edges.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.matmul
// CHECK: %[[GX:.+]] = arith.ceildivsi %{{.+}}, %c64
// CHECK: %[[GY:.+]] = arith.ceildivsi %{{.+}}, %c64
// CHECK: gpu.launch blocks({{.+}}) in (%{{.+}} = %[[GX]], %{{.+}} = %[[GY]], %{{.+}} = %c1{{.*}}) threads({{.+}}) in (%{{.+}} = %c16{{.*}}, %{{.+}} = %c16{{.*}}, %{{.+}} = %c1{{.*}}) workgroup(%[[AT:.+]] : memref<64x16xf32, #gpu.address_space<workgroup>>, %[[BT:.+]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK: %{{.+}}:16 = scf.for %{{.+}} = %c0{{.*}} to %{{.+}} step %c16{{.*}} iter_args
// CHECK-COUNT-4: memref.store %{{.+}}, %[[AT]]
// CHECK: gpu.barrier
// CHECK: scf.for {{.+}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-16: arith.mulf
// CHECK: gpu.barrier
// CHECK-COUNT-16: memref.store %{{.+}}, %arg2
func.func @matmul(%a: memref<?x64xf32>, %b: memref<64x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// Batched: the batch is the grid's z; integers multiply and add.
// CHECK-LABEL: func.func @batched
// CHECK: %[[B:.+]] = memref.dim %arg2, %c0
// CHECK: gpu.launch blocks({{.+}}) in (%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %[[B]])
// CHECK: arith.muli %{{.+}}, %{{.+}} : i32
// CHECK: arith.addi %{{.+}}, %{{.+}} : i32
func.func @batched(%a: memref<?x8x4xi32>, %b: memref<?x4x8xi32>, %c: memref<?x8x8xi32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x8x4xi32>, memref<?x4x8xi32>) outs(%c : memref<?x8x8xi32>)
  return
}

// Mixed element types (f16 x f16 -> f32) keep the loop mapping.
// CHECK-LABEL: func.func @mixed
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
func.func @mixed(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf16>, memref<8x8xf16>) outs(%c : memref<8x8xf32>)
  return
}
