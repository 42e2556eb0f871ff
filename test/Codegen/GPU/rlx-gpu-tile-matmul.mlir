// RUN: rlx-opt %s -rlx-gpu-tile-matmul=tile=16 | FileCheck %s

// A matmul becomes one launch of 16 x 16 threads per 16 x 16 tile of C
// (grid ceil(N/16) x ceil(M/16)), staging A and B tiles in workgroup memory
// between barriers, and adding the sum to C (linalg.matmul accumulates).
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.matmul
// CHECK: %[[GX:.+]] = arith.ceildivsi %{{.+}}, %c16
// CHECK: %[[GY:.+]] = arith.ceildivsi %{{.+}}, %c16
// CHECK: gpu.launch blocks({{.+}}) in (%{{.+}} = %[[GX]], %{{.+}} = %[[GY]], %{{.+}} = %c1{{.*}}) threads({{.+}}) in (%{{.+}} = %c16{{.*}}, %{{.+}} = %c16{{.*}}, %{{.+}} = %c1{{.*}}) workgroup(%[[AT:.+]] : memref<16x16xf32, #gpu.address_space<workgroup>>, %[[BT:.+]] : memref<16x16xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %{{.+}} = %c0{{.*}} to %{{.+}} step %c16{{.*}} iter_args
// CHECK: scf.if
// CHECK: memref.load %arg0
// CHECK: memref.store %{{.+}}, %[[AT]]
// CHECK: memref.load %arg1
// CHECK: memref.store %{{.+}}, %[[BT]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: gpu.barrier
// CHECK: memref.load %arg2
// CHECK: arith.addf
// CHECK: memref.store %{{.+}}, %arg2
func.func @matmul(%a: memref<?x64xf32>, %b: memref<64x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// Batched: the batch is the grid's z.
// CHECK-LABEL: func.func @batched
// CHECK: %[[B:.+]] = memref.dim %arg2, %c0
// CHECK: gpu.launch blocks({{.+}}) in (%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %[[B]])
// CHECK: arith.muli
// CHECK: arith.addi
func.func @batched(%a: memref<?x8x4xi32>, %b: memref<?x4x8xi32>, %c: memref<?x8x8xi32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x8x4xi32>, memref<?x4x8xi32>) outs(%c : memref<?x8x8xi32>)
  return
}
