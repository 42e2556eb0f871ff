// RUN: rlx-opt %s -rlx-gpu-tensor-core-matmul | FileCheck %s

// A bf16 x bf16 -> f32 matmul becomes one launch of 128 threads (4 warps)
// per 64 x 64 tile of C (grid ceil(N/64) x ceil(M/64)). Per step of 32
// along K each thread stages 8 pairs of A's tile and 8 of B's into
// workgroup memory (rows of 16 pairs padded to 20 words), each half loaded
// only inside the bounds (zero past them), the pair packed low | high <<
// 16; between barriers each warp runs 2 K substeps of 2 x 4 m16n8k16 mmas
// (16 in all) on 32 f32 accumulators carried across K, its A fragment 4
// words and its B fragment 2; then each accumulator is added to C where it
// lies inside it.
// CHECK-LABEL: func.func @bf16
// CHECK-NOT: linalg.matmul
// CHECK: %[[GX:.+]] = arith.ceildivsi %{{.+}}, %c64
// CHECK: %[[GY:.+]] = arith.ceildivsi %{{.+}}, %c64
// CHECK: gpu.launch blocks({{.+}}) in (%{{.+}} = %[[GX]], %{{.+}} = %[[GY]], %{{.+}} = %c1{{.*}}) threads(%[[TX:[^,]+]], {{.+}}) in (%{{.+}} = %c128, %{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}}) workgroup(%[[AT:.+]] : memref<64x20xi32, #gpu.address_space<workgroup>>, %[[BT:.+]] : memref<64x20xi32, #gpu.address_space<workgroup>>)
// CHECK: %{{.+}}:32 = scf.for %{{.+}} = %c0{{.*}} to %{{.+}} step %c32{{.*}} iter_args
// CHECK: scf.if %{{.+}} -> (i32) {
// CHECK-NEXT: memref.load %arg0
// CHECK-NEXT: arith.bitcast %{{.+}} : bf16 to i16
// CHECK-NEXT: arith.extui %{{.+}} : i16 to i32
// CHECK: } else {
// CHECK-NEXT: arith.constant 0 : i32
// CHECK: arith.shli %{{.+}}, %c16_i32
// CHECK-NEXT: arith.ori
// CHECK-NEXT: memref.store %{{.+}}, %[[AT]]
// CHECK-COUNT-7: memref.store %{{.+}}, %[[AT]]
// CHECK-COUNT-8: memref.store %{{.+}}, %[[BT]]
// CHECK: gpu.barrier
// CHECK-COUNT-16: nvvm.mma.sync A[%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^]]+}}]  B[%{{[^,]+}}, %{{[^]]+}}]  C[{{.+}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: gpu.barrier
// CHECK: scf.yield {{.+}} : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
// CHECK-COUNT-32: memref.store %{{.+}}, %arg2
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
func.func @bf16(%a: memref<?x40xbf16>, %b: memref<40x?xbf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x40xbf16>, memref<40x?xbf16>) outs(%c : memref<?x?xf32>)
  return
}

// f16: the staged words are the mma's vector<2xf16> registers (the PTX
// types implied by them); batched, the batch is the grid's z and every
// access has it first.
// CHECK-LABEL: func.func @f16_batched
// CHECK: %[[B:.+]] = memref.dim %arg2, %c0
// CHECK: gpu.launch blocks(%{{.+}}, %{{.+}}, %[[BZ:[^)]+]]) in (%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %[[B]])
// CHECK: memref.load %arg0[%[[BZ]], %{{.+}}, %{{.+}}] : memref<2x16x32xf16>
// CHECK: llvm.bitcast %{{.+}} : i32 to vector<2xf16>
// CHECK: nvvm.mma.sync {{.+}} shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: memref.store %{{.+}}, %arg2[%[[BZ]], %{{.+}}, %{{.+}}] : memref<2x16x8xf32>
func.func @f16_batched(%a: memref<2x16x32xf16>, %b: memref<2x32x8xf16>, %c: memref<2x16x8xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x16x32xf16>, memref<2x32x8xf16>) outs(%c : memref<2x16x8xf32>)
  return
}

// Left to rlx-gpu-tile-matmul and the loop mapping: f32 operands, a 16-bit
// result, mixed operand types, and matmuls with their own maps.
// CHECK-LABEL: func.func @others
// CHECK-NOT: gpu.launch
// CHECK-COUNT-4: linalg.matmul
// CHECK-NOT: gpu.launch
func.func @others(%f: memref<8x8xf32>, %h: memref<8x8xbf16>, %g: memref<8x8xf16>, %o: memref<8x8xf32>, %oh: memref<8x8xbf16>) {
  linalg.matmul ins(%f, %f : memref<8x8xf32>, memref<8x8xf32>) outs(%o : memref<8x8xf32>)
  linalg.matmul ins(%h, %h : memref<8x8xbf16>, memref<8x8xbf16>) outs(%oh : memref<8x8xbf16>)
  linalg.matmul ins(%h, %g : memref<8x8xbf16>, memref<8x8xf16>) outs(%o : memref<8x8xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%h, %h : memref<8x8xbf16>, memref<8x8xbf16>) outs(%o : memref<8x8xf32>)
  return
}
