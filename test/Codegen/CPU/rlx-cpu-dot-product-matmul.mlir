// RUN: rlx-opt %s -split-input-file -rlx-cpu-dot-product-matmul | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-cpu-dot-product-matmul='bf16=false int8=false' | FileCheck %s --check-prefix=OFF

// A bf16 x bf16 -> f32 matmul: B copied into k-pairs of 32-column panels
// (zero padded: 50 columns are 2 panels, 77 rows 39 pairs; two masked row
// reads, rows beyond K replaced by zeros, interleaved by one shuffle and
// stored as one packed row; panels in parallel when B is large, else
// serially), then (row block, panel) pairs in parallel: 8-row tiles whose k loop is vdpbf16ps on
// 16 accumulators, an odd k's last pair in an scf.if, the rest of the rows
// one at a time.
// OFF-LABEL: func @bf16_matmul
// OFF:         linalg.matmul
// CHECK-LABEL: func @bf16_matmul
// CHECK:         %[[PACKED:.+]] = memref.alloc(%{{.+}}) : memref<?x64xbf16>
// CHECK:         scf.if
// CHECK:           scf.parallel
// CHECK:             scf.for
// CHECK-COUNT-2:       vector.transfer_read %{{.+}} : memref<77x50xbf16>, vector<32xbf16>
// CHECK:               vector.shuffle %{{.+}}, %{{.+}} [0, 32, 1, 33, {{.+}}, 31, 63] : vector<32xbf16>, vector<32xbf16>
// CHECK:               vector.store %{{.+}}, %[[PACKED]]{{.+}} : memref<?x64xbf16>, vector<64xbf16>
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               vector.store %{{.+}}, %[[PACKED]]{{.+}} : memref<?x64xbf16>, vector<64xbf16>
// CHECK:         scf.parallel ({{.+}}, {{.+}}) = ({{.+}}, {{.+}}) to ({{.+}}, {{.+}})
// CHECK:             scf.for
// CHECK-COUNT-16:      vector.transfer_read %{{.+}} : memref<?x50xf32>, vector<16xf32>
// CHECK:               scf.for {{.+}} iter_args
// CHECK:                 vector.load %[[PACKED]]{{.+}} : memref<?x64xbf16>, vector<32xbf16>
// CHECK-COUNT-16:        x86vector.avx512.dot
// CHECK:               scf.if
// CHECK-COUNT-16:      vector.transfer_write
// CHECK:             scf.for
// CHECK:               x86vector.avx512.dot
// CHECK:         memref.dealloc %[[PACKED]]
// CHECK-NOT:     linalg.matmul
func.func @bf16_matmul(%a: memref<?x77xbf16>, %b: memref<77x50xbf16>, %c: memref<?x50xf32>) {
  linalg.matmul ins(%a, %b : memref<?x77xbf16>, memref<77x50xbf16>) outs(%c : memref<?x50xf32>)
  return
}

// -----

// f32 matmuls, and bf16 ones accumulating in bf16, are left to the generic
// schedule.
// CHECK-LABEL: func @others
// CHECK-NOT:     x86vector
// CHECK:         linalg.matmul
// CHECK:         linalg.matmul
func.func @others(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %c: memref<4x2xf32>,
                  %x: memref<4x8xbf16>, %y: memref<8x2xbf16>, %z: memref<4x2xbf16>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>) outs(%c : memref<4x2xf32>)
  linalg.matmul ins(%x, %y : memref<4x8xbf16>, memref<8x2xbf16>) outs(%z : memref<4x2xbf16>)
  return
}

// -----

// i8 x i8 -> i32: groups of 4 k (37 rows are 10 groups) packed by byte
// then 16-bit interleaves, B's column sums summed from the same reads; A
// flipped to unsigned for vpdpbusd, 128 * the column sums subtracted before
// the store.
// CHECK-LABEL: func @int8_matmul
// CHECK:         %[[PACKED:.+]] = memref.alloc(%{{.+}}) : memref<?x128xi8>
// CHECK:         %[[SUMS:.+]] = memref.alloc(%{{.+}}) : memref<?xi32>
// CHECK:         scf.if
// CHECK:           scf.parallel
// CHECK:           %[[PANEL_SUMS:.+]] = scf.for {{.+}} iter_args
// CHECK-COUNT-4:     arith.extsi %{{.+}} : vector<32xi8> to vector<32xi32>
// CHECK:             vector.shuffle {{.+}} : vector<32xi8>, vector<32xi8>
// CHECK:             vector.shuffle {{.+}} : vector<32xi8>, vector<32xi8>
// CHECK:             vector.shuffle {{.+}} : vector<32xi16>, vector<32xi16>
// CHECK:             vector.store %{{.+}}, %[[PACKED]]{{.+}} : memref<?x128xi8>, vector<128xi8>
// CHECK:           %[[SCALED:.+]] = arith.shli %[[PANEL_SUMS]]
// CHECK:           vector.store %[[SCALED]], %[[SUMS]]
// CHECK:         } else {
// CHECK:           arith.shli
// CHECK:         scf.parallel ({{.+}}, {{.+}}) =
// CHECK:               scf.for {{.+}} iter_args
// CHECK:                 vector.load %[[PACKED]]{{.+}} : memref<?x128xi8>, vector<64xi8>
// CHECK:                 arith.xori
// CHECK:                 llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:               vector.load %[[SUMS]]
// CHECK:               arith.subi %{{.+}} : vector<16xi32>
// CHECK:               vector.transfer_write
// CHECK:         memref.dealloc %[[PACKED]]
// CHECK:         memref.dealloc %[[SUMS]]
// OFF-LABEL: func @int8_matmul
// OFF:         linalg.matmul
func.func @int8_matmul(%a: memref<?x37xi8>, %b: memref<37x50xi8>, %c: memref<?x50xi32>) {
  linalg.matmul ins(%a, %b : memref<?x37xi8>, memref<37x50xi8>) outs(%c : memref<?x50xi32>)
  return
}
