// RUN: rlx-opt %s -split-input-file -rlx-cpu-bf16-matmul | FileCheck %s

// A bf16 x bf16 -> f32 matmul: B copied into k-pairs of 32-column panels
// (zero padded: 50 columns are 2 panels, 77 rows 39 pairs), then blocks of
// rows in parallel; per panel, 8-row tiles whose k loop is vdpbf16ps on
// 16 accumulators, an odd k's last pair in an scf.if, the rest of the rows
// one at a time.
// CHECK-LABEL: func @bf16_matmul
// CHECK:         %[[PACKED:.+]] = memref.alloc(%{{.+}}) : memref<?x64xbf16>
// CHECK:         scf.for
// CHECK:           memref.load %{{.+}} : memref<77x50xbf16>
// CHECK:           arith.select
// CHECK:           memref.store %{{.+}}, %[[PACKED]]
// CHECK:         scf.parallel
// CHECK:           scf.for
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
