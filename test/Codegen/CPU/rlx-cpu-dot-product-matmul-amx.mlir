// RUN: rlx-opt %s -split-input-file -rlx-cpu-dot-product-matmul='amx-bf16=true amx-int8=true' | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-cpu-dot-product-matmul | FileCheck %s --check-prefix=NOAMX

// With AMX, each (row block, panel) pair whose panel lies inside C and
// whose K holds a whole tile (32 bf16): pairs of 16-row tiles with 2 x 2
// accumulators loaded from C and carried across the k loop (A's two tiles
// read in place, B's two halves of the packed panel at its row stride of
// 64), then one 16-row tile alone; the k tail of those rows (77 = 2 x 32 +
// 13) and the rows beyond them on the zmm tiles from the first group after
// the tiles; a partial panel (the last 18 of 50 columns) on zmm only.
// NOAMX-LABEL: func @bf16_matmul
// NOAMX-NOT:     amx.
// CHECK-LABEL: func @bf16_matmul
// CHECK:         %[[PACKED:.+]] = memref.alloc(%{{.+}}, %{{.+}}) : memref<?x?x64xbf16>
// CHECK:         scf.parallel
// CHECK:           %[[KTILES:.+]] = arith.divsi %{{.+}}, %c32
// CHECK:           scf.if
// CHECK:             scf.for
// CHECK-COUNT-4:       amx.tile_load %arg2[{{.+}}] : memref<?x50xf32> into !amx.tile<16x16xf32>
// CHECK:               scf.for %{{.+}} = %{{.+}} to %[[KTILES]] step %{{.+}} iter_args({{.+}}) -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK-COUNT-2:         amx.tile_load %arg0[{{.+}}] : memref<?x77xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-2:         amx.tile_load %[[PACKED]][{{.+}}], %{{.+}} : memref<?x?x64xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-4:         amx.tile_mulf
// CHECK-COUNT-4:       amx.tile_store %arg2
// CHECK:             scf.if
// CHECK:               scf.for {{.+}} -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK-COUNT-2:         amx.tile_mulf
// CHECK:             arith.remsi %{{.+}}, %c32
// CHECK:             scf.if
// CHECK:               x86vector.avx512.dot
// CHECK:             x86vector.avx512.dot
// CHECK:           } else {
// CHECK:             x86vector.avx512.dot
// CHECK-NOT:     amx.
func.func @bf16_matmul(%a: memref<?x77xbf16>, %b: memref<77x50xbf16>, %c: memref<?x50xf32>) {
  linalg.matmul ins(%a, %b : memref<?x77xbf16>, memref<77x50xbf16>) outs(%c : memref<?x50xf32>)
  return
}

// -----

// int8 by a prepacked B: tdpbsud (A signed, B offset to unsigned), 64 k per
// tile; the zmm pass over the tiles' rows always runs (it subtracts the
// rows' offsets, and adds the k tail: 130 = 2 x 64 + 2).
// CHECK-LABEL: func @prepacked_int8
// CHECK:         scf.parallel
// CHECK:           arith.divsi %{{.+}}, %c64
// CHECK:           scf.if
// CHECK:             amx.tile_load %arg1[{{.+}}], %{{.+}} : memref<3x33x128xi8> into !amx.tile<16x64xi8>
// CHECK-COUNT-4:     amx.tile_muli %{{.+}}, %{{.+}} zext, %{{.+}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// CHECK:             amx.tile_muli %{{.+}}, %{{.+}} zext
// CHECK:             %[[TRUE:.+]] = arith.constant true
// CHECK:             scf.if %[[TRUE]]
// CHECK:               llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:               arith.subi
func.func @prepacked_int8(%a: memref<?x130xi8>, %b: memref<3x33x128xi8>, %c: memref<?x96xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (n floordiv 32, k floordiv 4, (n mod 32) * 4 + k mod 4)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x130xi8>, memref<3x33x128xi8>) outs(%c : memref<?x96xi32>)
      attrs = {rlx.packed_rhs} {
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

// -----

// A read with a stride between its elements (a transposed view): no AMX
// (a tile row is 64 contiguous bytes).
// CHECK-LABEL: func @strided_a
// CHECK-NOT:     amx.
// CHECK:         x86vector.avx512.dot
func.func @strided_a(%a: memref<64x64xbf16, strided<[1, 64]>>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xbf16, strided<[1, 64]>>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  return
}
