// RUN: rlx-opt %s -split-input-file -rlx-cpu-dot-product-matmul | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-cpu-dot-product-matmul='bf16=false int8=false' | FileCheck %s --check-prefix=OFF

// A bf16 x bf16 -> f32 matmul: B copied into k-pairs of 32-column panels
// (zero padded: 50 columns are 2 panels, 77 rows 39 pairs; two masked row
// reads, rows beyond K replaced by zeros, interleaved by one shuffle and
// stored as one packed row; panels in parallel when B is large, else
// serially), then (row block, panel) pairs in parallel: 8-row tiles whose k loop is vdpbf16ps on
// 16 accumulators, an odd k's last pair in an scf.if, the rest of the rows
// as tiles of 4, 2 and 1 rows; C read and written unmasked in a panel inside
// its 50 columns, masked in the last.
// OFF-LABEL: func @bf16_matmul
// OFF:         linalg.matmul
// CHECK-LABEL: func @bf16_matmul
// CHECK:         %[[PACKED:.+]] = memref.alloc(%{{.+}}, %{{.+}}) : memref<?x?x64xbf16>
// CHECK:         scf.if
// CHECK:           scf.parallel
// CHECK:             scf.for
// CHECK-COUNT-2:       vector.transfer_read %{{.+}} : memref<77x50xbf16>, vector<32xbf16>
// CHECK:               vector.shuffle %{{.+}}, %{{.+}} [0, 32, 1, 33, {{.+}}, 31, 63] : vector<32xbf16>, vector<32xbf16>
// CHECK:               vector.store %{{.+}}, %[[PACKED]]{{.+}} : memref<?x?x64xbf16>, vector<64xbf16>
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               vector.store %{{.+}}, %[[PACKED]]{{.+}} : memref<?x?x64xbf16>, vector<64xbf16>
// CHECK:         scf.parallel ({{.+}}, {{.+}}) = ({{.+}}, {{.+}}) to ({{.+}}, {{.+}})
// CHECK:             scf.if
// CHECK:             scf.for
// CHECK-COUNT-16:      vector.transfer_read %{{.+}} {in_bounds = [true]} : memref<?x50xf32>, vector<16xf32>
// CHECK:               scf.for {{.+}} iter_args
// CHECK:                 vector.load %[[PACKED]]{{.+}} : memref<?x?x64xbf16>, vector<32xbf16>
// CHECK-COUNT-16:        x86vector.avx512.dot
// CHECK:               scf.if
// CHECK-COUNT-16:      vector.transfer_write {{.+}} {in_bounds = [true]}
// CHECK:             scf.if
// CHECK-COUNT-8:       vector.transfer_read
// CHECK:             scf.if
// CHECK-COUNT-4:       vector.transfer_read
// CHECK:             scf.if
// CHECK-COUNT-2:       vector.transfer_read
// CHECK:           } else {
// CHECK:             scf.for
// CHECK-COUNT-16:      vector.transfer_read %{{.+}} : memref<?x50xf32>, vector<16xf32>
// CHECK:         memref.dealloc %[[PACKED]]
// CHECK-NOT:     linalg.matmul
func.func @bf16_matmul(%a: memref<?x77xbf16>, %b: memref<77x50xbf16>, %c: memref<?x50xf32>) {
  linalg.matmul ins(%a, %b : memref<?x77xbf16>, memref<77x50xbf16>) outs(%c : memref<?x50xf32>)
  return
}

// -----

// A product into a zero fill of C (a conv's): the fill goes and the tiles
// start from zero accumulators, C never read; 64 columns are two whole
// panels, so C is written unmasked and no panel is tested.
// CHECK-LABEL: func @zero_start
// CHECK-NOT:     linalg.fill
// CHECK:         %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK-NOT:     vector.transfer_read {{.+}} memref<?x64xf32>
// CHECK:         scf.for {{.+}} iter_args(%{{.+}} = %[[ZERO]], %{{.+}} = %[[ZERO]]
// CHECK:         vector.transfer_write {{.+}} {in_bounds = [true]} : vector<16xf32>, memref<?x64xf32>
// CHECK-NOT:     vector.transfer_read {{.+}} memref<?x64xf32>
// CHECK-NOT:     ] : vector<16xf32>, memref<?x64xf32>
// CHECK:         return
func.func @zero_start(%a: memref<?x64xbf16>, %b: memref<64x64xbf16>, %c: memref<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x64xf32>)
  linalg.matmul ins(%a, %b : memref<?x64xbf16>, memref<64x64xbf16>) outs(%c : memref<?x64xf32>)
  return
}

// -----

// 49 rows (a 7x7 conv at batch 1): 7 tiles of 7 rows, 14 accumulators each,
// no rows left over for the 4/2/1-row tiles.
// CHECK-LABEL: func @seven_row_tiles
// CHECK:         scf.for
// CHECK-COUNT-14:  vector.transfer_read %{{.+}} {in_bounds = [true]} : memref<49x64xf32>, vector<16xf32>
// CHECK:           scf.for {{.+}} iter_args
// CHECK-COUNT-14:    x86vector.avx512.dot
// CHECK-NOT:         x86vector.avx512.dot
// CHECK:           scf.yield
func.func @seven_row_tiles(%a: memref<49x64xbf16>, %b: memref<64x64xbf16>, %c: memref<49x64xf32>) {
  linalg.matmul ins(%a, %b : memref<49x64xbf16>, memref<64x64xbf16>) outs(%c : memref<49x64xf32>)
  return
}

// -----

// A product inside a row-tile loop that rlx-cpu-parallelize may fork (a
// fused epilogue's, marked rlx.parallel): its blocks and panels run as
// serial loops, not a nested parallel loop.
// CHECK-LABEL: func @inside_row_tiles
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               x86vector.avx512.dot
// CHECK:         } {rlx.parallel}
func.func @inside_row_tiles(%a: memref<128x64xbf16>, %b: memref<64x64xbf16>, %c: memref<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  scf.for %i = %c0 to %c128 step %c32 {
    %at = memref.subview %a[%i, 0] [32, 64] [1, 1] : memref<128x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
    %ct = memref.subview %c[%i, 0] [32, 64] [1, 1] : memref<128x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
    linalg.matmul ins(%at, %b : memref<32x64xbf16, strided<[64, 1], offset: ?>>, memref<64x64xbf16>) outs(%ct : memref<32x64xf32, strided<[64, 1], offset: ?>>)
  } {rlx.parallel}
  return
}

// -----

// A zero fill with other memory ops between it and the product into its
// buffer stays, and the product reads C.
// CHECK-LABEL: func @fill_not_next
// CHECK:         linalg.fill
// CHECK:         vector.transfer_read {{.+}} memref<64x64xf32>
func.func @fill_not_next(%c: memref<64x64xf32>, %b: memref<64x64xbf16>, %a: memref<64x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  %v = memref.alloc() : memref<64x64xf32>
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%v : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
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
// then 16-bit interleaves, sign bits flipped (B + 128, vpdpbusd's unsigned
// operand); A stays signed. Before the tiles, each row's 128 * sum of A
// (vpdpbusd of 64 bytes of A by ones into four sums, then a reduction;
// rows in parallel when A is large), subtracted after each tile's k loop.
// CHECK-LABEL: func @int8_matmul
// CHECK:         %[[PACKED:.+]] = memref.alloc(%{{.+}}, %{{.+}}) : memref<?x?x128xi8>
// CHECK:         scf.if
// CHECK:           scf.parallel
// CHECK:             scf.for
// CHECK:               vector.shuffle {{.+}} : vector<32xi8>, vector<32xi8>
// CHECK:               vector.shuffle {{.+}} : vector<32xi8>, vector<32xi8>
// CHECK:               vector.shuffle {{.+}} : vector<32xi16>, vector<32xi16>
// CHECK:               arith.xori %{{.+}} : vector<128xi8>
// CHECK:               vector.store %{{.+}}, %[[PACKED]]{{.+}} : memref<?x?x128xi8>, vector<128xi8>
// CHECK:         } else {
// CHECK:         %[[OFFSETS:.+]] = memref.alloc(%{{.+}}) : memref<?xi32>
// CHECK:         scf.if
// CHECK:           scf.parallel
// CHECK:               scf.for {{.+}} iter_args
// CHECK-COUNT-4:         llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:               vector.reduction <add>
// CHECK:               arith.shli
// CHECK:               memref.store %{{.+}}, %[[OFFSETS]]
// CHECK:         } else {
// CHECK:         scf.parallel ({{.+}}, {{.+}}) =
// CHECK:               scf.for {{.+}} iter_args
// CHECK:                 vector.load %[[PACKED]]{{.+}} : memref<?x?x128xi8>, vector<64xi8>
// CHECK-NOT:             arith.xori
// CHECK:                 llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:               memref.load %[[OFFSETS]]
// CHECK:               arith.subi %{{.+}} : vector<16xi32>
// CHECK:               vector.transfer_write
// CHECK:         memref.dealloc %[[PACKED]]
// CHECK:         memref.dealloc %[[OFFSETS]]
// OFF-LABEL: func @int8_matmul
// OFF:         linalg.matmul
func.func @int8_matmul(%a: memref<?x37xi8>, %b: memref<37x50xi8>, %c: memref<?x50xi32>) {
  linalg.matmul ins(%a, %b : memref<?x37xi8>, memref<37x50xi8>) outs(%c : memref<?x50xi32>)
  return
}

// -----

// A matmul by a prepacked weight (what the rlx-to-linalg lowering makes of a
// matmul reading rlx.unpack_dot_operand): the same tiles read the packed
// param directly: nothing is packed (only the rows' offsets are summed).
#a = affine_map<(m, n, k) -> (m, k)>
#p = affine_map<(m, n, k) -> (n floordiv 32, k floordiv 4, (n mod 32) * 4 + k mod 4)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func @prepacked_int8
// CHECK-NOT:     vector.store
// CHECK:         memref.alloc(%{{.+}}) : memref<?xi32>
// CHECK-NOT:     vector.store
// CHECK:         scf.parallel ({{.+}}, {{.+}}) =
// CHECK:                 vector.load %arg1{{.+}} : memref<2x10x128xi8>, vector<64xi8>
// CHECK:                 llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:     memref.dealloc %arg1
// CHECK-NOT:     linalg.generic
// OFF-LABEL: func @prepacked_int8
// OFF:         linalg.generic
func.func @prepacked_int8(%a: memref<?x37xi8>, %b: memref<2x10x128xi8>, %c: memref<?x50xi32>) {
  linalg.generic {indexing_maps = [#a, #p, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x37xi8>, memref<2x10x128xi8>) outs(%c : memref<?x50xi32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %m = arith.constant -128 : i8
    %yb = arith.xori %y, %m : i8
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %yb : i8 to i32
    %pr = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %pr : i32
    linalg.yield %s : i32
  }
  return
}
