// RUN: rlx-opt %s -split-input-file -rlx-cpu-vectorize-matmul | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-cpu-vectorize-matmul="tile-m=4 tile-n=16" | FileCheck %s --check-prefix=AVX2
// RUN: rlx-opt %s -split-input-file -rlx-cpu-vectorize-matmul="tall-tile-m=14" | FileCheck %s --check-prefix=TALL

// A static matmul becomes register tiles: m and n loops outside, a k loop
// carrying the C tile in vector registers, outer products inside (not
// scalar loops), with C read once before and written once after the k loop.
// CHECK-LABEL: func @matmul_static
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.transfer_read
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (vector<8x32xf32>)
// CHECK: vector.broadcast {{.*}} : f32 to vector<32xf32>
// CHECK: vector.extract %[[ACC]][0]
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.yield
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.matmul
func.func @matmul_static(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A dynamic M is peeled: full 8-row tiles up to the last multiple of 8 (their
// masks are constant all-true, which LLVM drops), then at most one partial
// tile with real masks; the outer loop is marked for parallelization.
// CHECK-LABEL: func @matmul_dynamic
// CHECK: %[[DIM:.+]] = memref.dim
// CHECK: %[[FULL:.+]] = affine.apply #{{.+}}()[%[[DIM]]]
// CHECK: scf.for %{{.+}} = %c0 to %[[FULL]] step %c8
// CHECK: vector.fma
// CHECK: } {rlx.parallel}
// CHECK: scf.for %{{.+}} = %[[FULL]] to %[[DIM]] step %c8
// CHECK: vector.fma
// CHECK-NOT: linalg.matmul
func.func @matmul_dynamic(%a: memref<?x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x64xf32>) outs(%c : memref<?x64xf32>)
  return
}

// -----

// Negative: other linalg ops are untouched.
// CHECK-LABEL: func @no_matmul
// CHECK: linalg.fill
func.func @no_matmul(%c: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<4xf32>)
  return
}

// -----

// An input seen through memref.expand_shape is copied to its own buffer
// first (alias folding does not terminate through it); the rest as above.
// CHECK-LABEL: func @matmul_expanded_input
// CHECK: %[[BUF:.+]] = memref.alloc() : memref<8x32xf32>
// CHECK: memref.copy %{{.+}}, %[[BUF]]
// CHECK: vector.fma
// CHECK: memref.dealloc %[[BUF]]
func.func @matmul_expanded_input(%a: memref<8x8xf32>, %b: memref<256xf32>, %c: memref<8x32xf32>) {
  %e = memref.expand_shape %b [[0, 1]] output_shape [8, 32] : memref<256xf32> into memref<8x32xf32>
  linalg.matmul ins(%a, %e : memref<8x8xf32>, memref<8x32xf32>) outs(%c : memref<8x32xf32>)
  return
}

// -----

// A B operand of 512 KiB or more is read from column panels (K x 32
// contiguous), so a register tile reads its 32 B values for one k as one
// contiguous vector. Loops: K block (1024 here: folded away), one parallel
// loop over (M block, B panel) pairs (one M block here: the cores split the
// panels), row tile. With one M block, each K block of a panel is read by
// one pass of the row tiles, so it is copied where it is read, into a
// buffer of its own that stays in cache, not packed whole beforehand; and A
// is read in place, its K block in cache across the panels, not packed
// K-major (a copy and a parallel region of its own per K block).
// CHECK-LABEL: func @matmul_packed
// CHECK-NOT: output_shape [1024, 32, 32]
// CHECK-NOT: linalg.transpose
// CHECK: scf.for %[[PAIR:.+]] = %c0 to %c32 step %c1
// CHECK: %[[BLOCK:.+]] = arith.divui %[[PAIR]], %c32
// CHECK: %[[PANEL:.+]] = arith.remui %[[PAIR]], %c32
// CHECK: %[[FIRST:.+]] = arith.muli %[[BLOCK]], %c8
// CHECK: %[[PANELBLOCK:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1024x32xf32>
// CHECK: %[[COLUMN:.+]] = arith.muli %[[PANEL]], %c32
// CHECK: %[[VIEW:.+]] = memref.subview %arg1[0, %[[COLUMN]]] [1024, 32] [1, 1]
// CHECK: linalg.copy ins(%[[VIEW]] : {{.*}}) outs(%[[PANELBLOCK]] : memref<1024x32xf32>)
// CHECK: scf.for %[[ROW:.+]] = %c0 to %c8 step %c1
// CHECK: %[[TILE:.+]] = arith.addi %[[FIRST]], %[[ROW]]
// CHECK: %[[FIRSTROW:.+]] = arith.muli %[[TILE]], %c8
// CHECK: vector.transfer_read %arg0[%[[FIRSTROW]], %{{.+}}]{{.*}} vector<8x1xf32>
// CHECK: vector.transfer_read %[[PANELBLOCK]][%{{.+}}, %c0]{{.*}} vector<1x32xf32>
// CHECK: vector.fma
// CHECK: memref.dealloc %[[PANELBLOCK]]
// CHECK: } {rlx.parallel}
// CHECK-NOT: memref.dealloc
func.func @matmul_packed(%a: memref<64x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<64x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<64x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<64x1024xf32>)
  return
}

// -----

// Under 512 KiB, a B whose rows lie 8 KiB apart (a filter gradient's
// output gradient at 7x7, [49, 2048]) is packed too: its 49 rows of a
// register tile's columns share one L1 set. Rows 2 KiB apart share two
// sets, packed from 32 rows ([196, 512]); 12 such rows 8 KiB apart fit a
// set's ways, and [200, 96]'s rows spread over 32 sets: both read in
// place. So is a crowded B (a 3x3 conv's [576, 64] filter, rows 256 bytes
// apart in 16 sets) read by two register tiles of rows alone, an
// epilogue's row tile: packing it would cost as much as the product.
// CHECK-LABEL: func @matmul_same_set_rows
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<49x32xf32>
// CHECK: linalg.copy
// CHECK: vector.fma
// CHECK-LABEL: func @matmul_two_set_rows
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<196x32xf32>
// CHECK: linalg.copy
// CHECK: vector.fma
// CHECK-LABEL: func @matmul_rows_fit_set
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.copy
// CHECK: vector.fma
// CHECK-LABEL: func @matmul_rows_spread
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.copy
// CHECK: vector.fma
// CHECK-LABEL: func @matmul_row_tile_crowded
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.copy
// CHECK: vector.fma
func.func @matmul_same_set_rows(%a: memref<64x49xf32>, %b: memref<49x2048xf32>, %c: memref<64x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<64x49xf32>, memref<49x2048xf32>) outs(%c : memref<64x2048xf32>)
  return
}
func.func @matmul_two_set_rows(%a: memref<64x196xf32>, %b: memref<196x512xf32>, %c: memref<64x512xf32>) {
  linalg.matmul ins(%a, %b : memref<64x196xf32>, memref<196x512xf32>) outs(%c : memref<64x512xf32>)
  return
}
func.func @matmul_rows_fit_set(%a: memref<64x12xf32>, %b: memref<12x2048xf32>, %c: memref<64x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<64x12xf32>, memref<12x2048xf32>) outs(%c : memref<64x2048xf32>)
  return
}
func.func @matmul_rows_spread(%a: memref<64x200xf32>, %b: memref<200x96xf32>, %c: memref<64x96xf32>) {
  linalg.matmul ins(%a, %b : memref<64x200xf32>, memref<200x96xf32>) outs(%c : memref<64x96xf32>)
  return
}
func.func @matmul_row_tile_crowded(%a: memref<16x576xf32>, %b: memref<576x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x576xf32>, memref<576x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// Several M blocks (512 rows in blocks of 256 at K block 1024) read every
// panel: B is packed whole into panels once, before the loops, and A's K
// block into K-major row tiles, so that each core's M block streams from
// consecutive addresses while the panels pass over it.
// The panels are written in B's own order (loops row, panel, column), so
// B streams from consecutive addresses.
// CHECK-DAG: #[[ROWS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[PANELS:.+]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-LABEL: func @matmul_packed_m_blocks
// CHECK: memref.expand_shape %arg1 {{.*}} output_shape [1024, 32, 32]
// CHECK: %[[PACKED:.+]] = memref.alloc() {alignment = 64 : i64} : memref<32x1024x32xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ROWS]], #[[PANELS]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.+}} : memref<1024x32x32xf32>) outs(%[[PACKED]] : memref<32x1024x32xf32>)
// CHECK: %[[PACKEDA:.+]] = memref.alloc() {alignment = 64 : i64} : memref<64x1024x8xf32>
// CHECK: linalg.transpose ins(%{{.+}}) outs(%[[PACKEDA]] : memref<64x1024x8xf32>) permutation = [0, 2, 1]
// CHECK: scf.for %[[PAIR:.+]] = %c0 to %c64 step %c1
// CHECK: %[[PANEL:.+]] = arith.remui %[[PAIR]], %c32
// CHECK: vector.transfer_read %[[PACKEDA]][%{{.+}}, %{{.+}}, %c0]{{.*}} vector<1x8xf32>
// CHECK: vector.transfer_read %[[PACKED]][%[[PANEL]], %{{.+}}, %c0]{{.*}} vector<1x32xf32>
// CHECK: } {rlx.parallel}
// CHECK: memref.dealloc %[[PACKED]]
func.func @matmul_packed_m_blocks(%a: memref<512x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<512x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<512x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<512x1024xf32>)
  return
}

// Several M blocks (784 rows in blocks of 392) whose rows are 2 KiB apart,
// four of a register tile's rows in each of two L1 sets: A is read in
// place, B packed into panels as above.
// CHECK-LABEL: func @matmul_m_blocks_in_place
// CHECK: %[[PACKED:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x512x32xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.for %[[PAIR:.+]] = %c0 to %c32 step %c1
// CHECK: scf.for %{{.+}} = %c0 to %c49 step %c1
// CHECK: vector.transfer_read %arg0[%{{.+}}, %{{.+}}]{{.*}} vector<8x1xf32>
// CHECK: } {rlx.parallel}
func.func @matmul_m_blocks_in_place(%a: memref<784x512xf32>, %b: memref<512x512xf32>, %c: memref<784x512xf32>) {
  linalg.matmul ins(%a, %b : memref<784x512xf32>, memref<512x512xf32>) outs(%c : memref<784x512xf32>)
  return
}

// -----

// The row after the last whole 8-row tile (49 = 6 x 8 + 1, a 7x7 conv's
// pixels) is multiplied in the same parallel loop, by the panel block the
// row tiles read, not by a second pass over all of B afterwards; and with
// four interleaved partial sums over k, added at the end, instead of a
// register tile whose every multiply-add waits for the last.
// CHECK-LABEL: func @matmul_packed_rest_rows
// CHECK: scf.for %{{.+}} = %c0 to %c32 step %c1
// CHECK: %[[PANELBLOCK:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1024x32xf32>
// CHECK: scf.for %{{.+}} = %c0 to %c6 step %c1
// CHECK: vector.transfer_read %arg0[%{{.+}}, %{{.+}}]{{.*}} vector<8x1xf32>
// CHECK: vector.transfer_read %[[PANELBLOCK]]
// CHECK: %[[SUMS:.+]]:4 = scf.for %[[K:.+]] = %c0 to %c1024 step %c4 iter_args({{.*}}) -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>)
// CHECK: memref.load %arg0[%c48, %[[K]]]
// CHECK-COUNT-4: vector.fma
// CHECK: scf.yield
// CHECK: %[[S01:.+]] = arith.addf %[[SUMS]]#0, %[[SUMS]]#1
// CHECK: %[[S012:.+]] = arith.addf %[[S01]], %[[SUMS]]#2
// CHECK: %[[S:.+]] = arith.addf %[[S012]], %[[SUMS]]#3
// CHECK: %[[OLD:.+]] = vector.transfer_read %arg2[%c48, %{{.+}}]
// CHECK: %[[NEW:.+]] = arith.addf %[[OLD]], %[[S]]
// CHECK: vector.transfer_write %[[NEW]], %arg2[%c48, %{{.+}}]
// CHECK: memref.dealloc %[[PANELBLOCK]]
// CHECK: } {rlx.parallel}
// CHECK-NOT: rlx.parallel
// CHECK: return
func.func @matmul_packed_rest_rows(%a: memref<49x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<49x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<49x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<49x1024xf32>)
  return
}

// Into a zero fill (gone: the tiles start from zero), the rest row's sums
// are not added to C's old contents in the first K block; two rows
// interleave two steps each.
// CHECK-LABEL: func @matmul_packed_rest_rows_from_zero
// CHECK-NOT: linalg.fill
// CHECK: %[[SUMS:.+]]:4 = scf.for %[[K:.+]] = %c0 to %c1024 step %c2 iter_args({{.*}}) -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>)
// CHECK-DAG: memref.load %arg0[%c48, %[[K]]]
// CHECK-DAG: memref.load %arg0[%c49, %[[K]]]
// CHECK: %[[ROW0:.+]] = arith.addf %[[SUMS]]#0, %[[SUMS]]#2
// CHECK-NOT: vector.transfer_read %arg2[%c48
// CHECK: %[[NEW0:.+]] = arith.addf %[[ROW0]], %cst
// CHECK: vector.transfer_write %[[NEW0]], %arg2[%c48, %{{.+}}]
// CHECK: %[[ROW1:.+]] = arith.addf %[[SUMS]]#1, %[[SUMS]]#3
// CHECK-NOT: vector.transfer_read %arg2[%c49
// CHECK: %[[NEW1:.+]] = arith.addf %[[ROW1]], %cst
// CHECK: vector.transfer_write %[[NEW1]], %arg2[%c49, %{{.+}}]
func.func @matmul_packed_rest_rows_from_zero(%a: memref<50x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<50x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<50x1024xf32>)
  linalg.matmul ins(%a, %b : memref<50x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<50x1024xf32>)
  return
}

// -----

// A B made by transposing a buffer for this matmul alone (a conv's filter
// for its input gradient) is not made: each panel block is transposed from
// the source where it is read; with several M blocks, the source is packed
// into panels directly (groups of its rows).
// CHECK-LABEL: func @matmul_transposed_b
// CHECK-NOT: memref.alloc() : memref<1024x1024xf32>
// CHECK: %[[PANELBLOCK:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1024x32xf32>
// CHECK: %[[VIEW:.+]] = memref.subview %arg1[%{{.+}}, 0] [32, 1024] [1, 1]
// CHECK: linalg.transpose ins(%[[VIEW]] : {{.*}}) outs(%[[PANELBLOCK]] : memref<1024x32xf32>) permutation = [1, 0]
// CHECK: } {rlx.parallel}
// CHECK-NOT: memref.dealloc %arg1
// CHECK-LABEL: func @matmul_transposed_b_m_blocks
// CHECK: memref.expand_shape %arg1 {{.*}} output_shape [32, 32, 1024]
// CHECK: %[[PACKED:.+]] = memref.alloc() {alignment = 64 : i64} : memref<32x1024x32xf32>
// CHECK: linalg.transpose ins(%{{.+}}) outs(%[[PACKED]] : memref<32x1024x32xf32>) permutation = [0, 2, 1]
// CHECK-NOT: memref.alloc() : memref<1024x1024xf32>
func.func @matmul_transposed_b(%a: memref<64x1024xf32>, %w: memref<1024x1024xf32>, %c: memref<64x1024xf32>) {
  %cst = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<1024x1024xf32>
  linalg.transpose ins(%w : memref<1024x1024xf32>) outs(%t : memref<1024x1024xf32>) permutation = [1, 0]
  %out = memref.alloc() : memref<64x1024xf32>
  linalg.fill ins(%cst : f32) outs(%out : memref<64x1024xf32>)
  linalg.matmul ins(%a, %t : memref<64x1024xf32>, memref<1024x1024xf32>) outs(%out : memref<64x1024xf32>)
  memref.dealloc %t : memref<1024x1024xf32>
  memref.copy %out, %c : memref<64x1024xf32> to memref<64x1024xf32>
  return
}
func.func @matmul_transposed_b_m_blocks(%a: memref<512x1024xf32>, %w: memref<1024x1024xf32>, %c: memref<512x1024xf32>) {
  %t = memref.alloc() : memref<1024x1024xf32>
  linalg.transpose ins(%w : memref<1024x1024xf32>) outs(%t : memref<1024x1024xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %t : memref<512x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<512x1024xf32>)
  memref.dealloc %t : memref<1024x1024xf32>
  return
}

// -----

// A transpose's source freed between it and the matmul (its last reader
// was the transpose) is freed after the matmul's loops, which read it; both
// transposed buffers go, the first one's free right after the matmul with
// it.
// CHECK-LABEL: func @matmul_transposed_source_freed
// CHECK-NOT: memref.alloc() : memref<64x1024xf32>
// CHECK: %[[SOURCE:.+]] = memref.alloc() : memref<1024x1024xf32>
// CHECK: memref.copy %arg1, %[[SOURCE]]
// CHECK-NOT: memref.dealloc %[[SOURCE]]
// CHECK: memref.subview %[[SOURCE]]
// CHECK: } {rlx.parallel}
// CHECK: memref.dealloc %[[SOURCE]]
// CHECK: return
func.func @matmul_transposed_source_freed(%x: memref<1024x64xf32>, %v: memref<1024x1024xf32>, %c: memref<64x1024xf32>) {
  %ta = memref.alloc() : memref<64x1024xf32>
  linalg.transpose ins(%x : memref<1024x64xf32>) outs(%ta : memref<64x1024xf32>) permutation = [1, 0]
  %w = memref.alloc() : memref<1024x1024xf32>
  memref.copy %v, %w : memref<1024x1024xf32> to memref<1024x1024xf32>
  %tb = memref.alloc() : memref<1024x1024xf32>
  linalg.transpose ins(%w : memref<1024x1024xf32>) outs(%tb : memref<1024x1024xf32>) permutation = [1, 0]
  memref.dealloc %w : memref<1024x1024xf32>
  linalg.matmul ins(%ta, %tb : memref<64x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<64x1024xf32>)
  memref.dealloc %ta : memref<64x1024xf32>
  memref.dealloc %tb : memref<1024x1024xf32>
  return
}

// -----

// The transpose stays where its buffer has another reader, is read as both
// operands, or where an op between it and the matmul may write its source.
// CHECK-LABEL: func @matmul_transposed_b_read_twice
// CHECK: linalg.transpose ins(%arg1 : memref<1024x1024xf32>) outs(%[[T:.+]] : memref<1024x1024xf32>) permutation = [1, 0]
// CHECK: memref.copy %[[T]]
// CHECK-LABEL: func @matmul_transposed_both_operands
// CHECK: linalg.transpose ins(%arg0 : memref<1024x1024xf32>) outs(%[[T:.+]] : memref<1024x1024xf32>) permutation = [1, 0]
// CHECK: memref.dealloc %[[T]]
// CHECK-LABEL: func @matmul_transposed_b_source_written
// CHECK: linalg.transpose ins(%arg1 : memref<1024x1024xf32>) outs(%{{.+}} : memref<1024x1024xf32>) permutation = [1, 0]
// CHECK: linalg.fill {{.*}} outs(%arg1
func.func @matmul_transposed_b_read_twice(%a: memref<64x1024xf32>, %w: memref<1024x1024xf32>, %c: memref<64x1024xf32>, %copy: memref<1024x1024xf32>) {
  %t = memref.alloc() : memref<1024x1024xf32>
  linalg.transpose ins(%w : memref<1024x1024xf32>) outs(%t : memref<1024x1024xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %t : memref<64x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<64x1024xf32>)
  memref.copy %t, %copy : memref<1024x1024xf32> to memref<1024x1024xf32>
  memref.dealloc %t : memref<1024x1024xf32>
  return
}
func.func @matmul_transposed_both_operands(%w: memref<1024x1024xf32>, %c: memref<1024x1024xf32>) {
  %t = memref.alloc() : memref<1024x1024xf32>
  linalg.transpose ins(%w : memref<1024x1024xf32>) outs(%t : memref<1024x1024xf32>) permutation = [1, 0]
  linalg.matmul ins(%t, %t : memref<1024x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<1024x1024xf32>)
  memref.dealloc %t : memref<1024x1024xf32>
  return
}
func.func @matmul_transposed_b_source_written(%a: memref<64x1024xf32>, %w: memref<1024x1024xf32>, %c: memref<64x1024xf32>) {
  %cst = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<1024x1024xf32>
  linalg.transpose ins(%w : memref<1024x1024xf32>) outs(%t : memref<1024x1024xf32>) permutation = [1, 0]
  linalg.fill ins(%cst : f32) outs(%w : memref<1024x1024xf32>)
  linalg.matmul ins(%a, %t : memref<64x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<64x1024xf32>)
  memref.dealloc %t : memref<1024x1024xf32>
  return
}

// -----

// At the bound: 256 x 512 (512 KiB) is read from panel blocks, 124 x 1056
// (1 KiB less, its rows 4224 bytes apart over 32 L1 sets) is not.
// CHECK-LABEL: func @matmul_packed_at_bound
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK-LABEL: func @matmul_under_packing_bound
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.transpose
// CHECK: vector.fma
func.func @matmul_packed_at_bound(%a: memref<64x256xf32>, %b: memref<256x512xf32>, %c: memref<64x512xf32>) {
  linalg.matmul ins(%a, %b : memref<64x256xf32>, memref<256x512xf32>) outs(%c : memref<64x512xf32>)
  return
}
func.func @matmul_under_packing_bound(%a: memref<64x124xf32>, %b: memref<124x1056xf32>, %c: memref<64x1056xf32>) {
  linalg.matmul ins(%a, %b : memref<64x124xf32>, memref<124x1056xf32>) outs(%c : memref<64x1056xf32>)
  return
}

// -----

// A matmul by a weight prepacked into the same panels (a generic marked
// rlx.packed_rhs reading panels x K x 32) gets the same loops without the
// copy of B (its one M block of A read in place); with a dynamic A, panel
// (the parallel loop) then K block over the rows.
#pa = affine_map<(m, n, k) -> (m, k)>
#pp = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#pc = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func @matmul_prepacked
// CHECK-NOT: linalg.transpose
// CHECK: scf.for %[[PAIR:.+]] = %c0 to %c32 step %c1
// CHECK: %[[PANEL:.+]] = arith.remui %[[PAIR]], %c32
// CHECK: vector.transfer_read %arg1[%[[PANEL]], %{{.+}}, %c0]{{.*}} vector<1x32xf32>
// CHECK: vector.fma
// CHECK-NOT: memref.dealloc %arg1
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func @matmul_prepacked_dynamic
// CHECK-NOT: linalg.transpose
// CHECK: scf.for %[[PANEL:.+]] = %c0 to %c32 step %c1
// CHECK: vector.fma
// CHECK: } {rlx.parallel}
// CHECK-NOT: linalg.generic
func.func @matmul_prepacked(%a: memref<64x1024xf32>, %b: memref<32x1024x32xf32>, %c: memref<64x1024xf32>) {
  linalg.generic {indexing_maps = [#pa, #pp, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x1024xf32>, memref<32x1024x32xf32>) outs(%c : memref<64x1024xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @matmul_prepacked_dynamic(%a: memref<?x1024xf32>, %b: memref<32x1024x32xf32>, %c: memref<?x1024xf32>) {
  linalg.generic {indexing_maps = [#pa, #pp, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x1024xf32>, memref<32x1024x32xf32>) outs(%c : memref<?x1024xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A product reshaped after the matmul (a conv's [N*OH*OW, F] expanded to
// NHWC) still carries its C tile in registers through the k loop; the
// expand_shape keeps the buffer.
// CHECK-LABEL: func @matmul_output_viewed
// CHECK: %[[C:.+]] = memref.alloc
// CHECK: vector.transfer_read %[[C]]
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %{{.+}}) -> (vector<8x32xf32>)
// CHECK: scf.yield
// CHECK: vector.transfer_write {{.*}}, %[[C]]
// CHECK-NOT: unrealized_conversion_cast
// CHECK: memref.expand_shape %[[C]]
func.func @matmul_output_viewed(%a: memref<64x64xf32>, %b: memref<64x64xf32>) -> memref<4x16x64xf32> {
  %c = memref.alloc() : memref<64x64xf32>
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  %e = memref.expand_shape %c [[0, 1], [2]] output_shape [4, 16, 64] : memref<64x64xf32> into memref<4x16x64xf32>
  return %e : memref<4x16x64xf32>
}

// -----

// An output whose buffer an input also reads through a view is left to the
// upstream hoisting, which refuses it: C stays in memory at every k step.
// CHECK-LABEL: func @matmul_output_aliases_input
// CHECK-NOT: iter_args
// CHECK: memref.expand_shape
func.func @matmul_output_aliases_input(%b: memref<64x64xf32>) -> memref<4x16x64xf32> {
  %c = memref.alloc() : memref<64x64xf32>
  %a = memref.subview %c[0, 0] [64, 64] [1, 1] : memref<64x64xf32> to memref<64x64xf32, strided<[64, 1]>>
  linalg.matmul ins(%a, %b : memref<64x64xf32, strided<[64, 1]>>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  %e = memref.expand_shape %c [[0, 1], [2]] output_shape [4, 16, 64] : memref<64x64xf32> into memref<4x16x64xf32>
  return %e : memref<4x16x64xf32>
}

// -----

// A single row (a classifier at batch 1) has one m tile: its n loop is the
// one marked for parallelization (the last, partial tile of n stays serial).
// CHECK-LABEL: func @matmul_one_row
// CHECK: scf.for %{{.+}} = %c0 to %c992 step %c32 {
// CHECK: vector.fma
// CHECK: } {rlx.parallel}
// CHECK-NOT: rlx.parallel
func.func @matmul_one_row(%a: memref<1x256xf32>, %b: memref<256x1000xf32>, %c: memref<1x1000xf32>) {
  linalg.matmul ins(%a, %b : memref<1x256xf32>, memref<256x1000xf32>) outs(%c : memref<1x1000xf32>)
  return
}

// -----

// A product written into a row tile of a larger allocation that has other
// views (rlx-cpu-fuse-matmul-epilogues' tiles, the epilogue then reading
// the tile): the C tile still lives in registers across the k loop.
// CHECK-LABEL: func @matmul_into_tile_of_viewed_buffer
// CHECK: scf.for %[[ROW:.+]] = %c0 to %c64 step %c8
// CHECK: %[[C:.+]] = vector.transfer_read %[[BUF:.+]][%[[ROW]], %{{.+}}]{{.*}} vector<8x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[C]]) -> (vector<8x32xf32>)
// CHECK-NOT: vector.transfer_write
// CHECK: scf.yield
// CHECK: vector.transfer_write %{{.+}}, %[[BUF]][%[[ROW]], %{{.+}}]
// With a 4x16 register tile (AVX2's, once), two register tiles per 8-row
// tile: each of C's row indices is folded from a subview of its own, and
// the C tile is hoisted only once they are one value (before, it was read
// and written at every k step and 1x1 convs ran at a third of oneDNN on
// Zen 3).
// AVX2-LABEL: func @matmul_into_tile_of_viewed_buffer
// AVX2: scf.for %[[ROW:.+]] = %c0 to %c64 step %c8
// AVX2: scf.for %[[SUB:.+]] = %c0 to %c8 step %c4
// AVX2: %[[R:.+]] = affine.apply #{{.+}}()[%[[ROW]], %[[SUB]]]
// AVX2: %[[C:.+]] = vector.transfer_read %[[BUF:.+]][%[[R]], %{{.+}}]{{.*}} vector<4x16xf32>
// AVX2: scf.for {{.*}} iter_args(%{{.+}} = %[[C]]) -> (vector<4x16xf32>)
// AVX2-NOT: vector.transfer_write
// AVX2: scf.yield
// AVX2: vector.transfer_write %{{.+}}, %[[BUF]][%[[R]], %{{.+}}]
func.func @matmul_into_tile_of_viewed_buffer(%a: memref<64x64xf32>, %b: memref<64x64xf32>) -> memref<1x8x8x64xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %buf = memref.alloc() : memref<64x64xf32>
  scf.for %row = %c0 to %c64 step %c8 {
    %at = memref.subview %a[%row, 0] [8, 64] [1, 1] : memref<64x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
    %ct = memref.subview %buf[%row, 0] [8, 64] [1, 1] : memref<64x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
    linalg.matmul ins(%at, %b : memref<8x64xf32, strided<[64, 1], offset: ?>>, memref<64x64xf32>) outs(%ct : memref<8x64xf32, strided<[64, 1], offset: ?>>)
  }
  %v = memref.expand_shape %buf [[0, 1, 2], [3]] output_shape [1, 8, 8, 64] : memref<64x64xf32> into memref<1x8x8x64xf32>
  return %v : memref<1x8x8x64xf32>
}

// -----

// A matmul by a block-scaled weight prepacked as codes and scales (the
// generic also marked rlx.scale_block_size): where the loops view a
// panel's K block, the block is decoded into a buffer, chunk by chunk of
// 32 rows (gcd of the K block 96 and the block size 32), each chunk one
// generic reading its row of scales as a vector (no floordiv map) with
// the product's decoding as its body; the tile matmuls read the buffer,
// which is freed after the row tiles. Static A with whole row tiles, and a
// dynamic A (panel, then K block).
#ba = affine_map<(m, n, k) -> (m, k)>
#bc = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#bs = affine_map<(m, n, k) -> (n floordiv 32, k floordiv 32, n mod 32)>
#bo = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func @matmul_block_scaled
// (Ends the AVX2 run's checks of the function above.)
// AVX2-LABEL: func @matmul_block_scaled(
// CHECK: scf.for %[[PAIR:.+]] = %c0 to %c2 step %c1
// CHECK: %[[PANEL:.+]] = arith.remui %[[PAIR]], %c2
// CHECK: %[[BUF:.+]] = memref.alloc() {alignment = 64 : i64} : memref<96x32xf32>
// CHECK: scf.for %[[CHUNK:.+]] = %c0 to %c3 step %c1
// CHECK: %[[AT:.+]] = arith.muli %[[CHUNK]], %c32
// CHECK: %[[CODES:.+]] = memref.subview %arg1[%[[PANEL]], %{{.+}}, 0] [1, 32, 32] [1, 1, 1]
// CHECK: %[[ROW:.+]] = arith.divui %{{.+}}, %c32
// CHECK: %[[SCALES:.+]] = memref.subview %arg2[%[[PANEL]], %[[ROW]], 0] [1, 1, 32] [1, 1, 1]
// CHECK: %[[OUT:.+]] = memref.subview %[[BUF]][%[[AT]], 0] [32, 32] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[CODES]], %[[SCALES]] : memref<32x32xf8E4M3FN, {{.+}}>, memref<32xf32, {{.+}}>) outs(%[[OUT]] : memref<32x32xf32, {{.+}}>)
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK-NOT: arith.addf
// CHECK: linalg.yield
// CHECK: vector.transfer_read %[[BUF]]
// CHECK: vector.fma
// CHECK: memref.dealloc %[[BUF]]
// CHECK-LABEL: func @matmul_block_scaled_dynamic
// CHECK: %[[FEW:.+]] = arith.cmpi ule, %{{.+}}, %c2
// CHECK: scf.for %[[PANEL:.+]] = %c0 to %c2 step %c1
// CHECK: scf.if %[[FEW]]
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<32xf32>
// CHECK: } else {
// CHECK: %[[BUF:.+]] = memref.alloc() {alignment = 64 : i64} : memref<96x32xf32>
// CHECK: linalg.generic
// CHECK: vector.fma
// CHECK: memref.dealloc %[[BUF]]
// CHECK: } {rlx.parallel}
func.func @matmul_block_scaled(%a: memref<16x96xf32>, %codes: memref<2x96x32xf8E4M3FN>, %scales: memref<2x3x32xf32>, %c: memref<16x64xf32>) {
  linalg.generic {indexing_maps = [#ba, #bc, #bs, #bo], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %codes, %scales : memref<16x96xf32>, memref<2x96x32xf8E4M3FN>, memref<2x3x32xf32>) outs(%c : memref<16x64xf32>) attrs = {rlx.packed_rhs, rlx.scale_block_size = 32 : i64} {
  ^bb0(%x: f32, %q: f8E4M3FN, %s: f32, %acc: f32):
    %d = arith.extf %q : f8E4M3FN to f32
    %w = arith.mulf %d, %s : f32
    %p = arith.mulf %x, %w : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}
func.func @matmul_block_scaled_dynamic(%a: memref<?x96xf32>, %codes: memref<2x96x32xf8E4M3FN>, %scales: memref<2x3x32xf32>, %c: memref<?x64xf32>) {
  linalg.generic {indexing_maps = [#ba, #bc, #bs, #bo], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %codes, %scales : memref<?x96xf32>, memref<2x96x32xf8E4M3FN>, memref<2x3x32xf32>) outs(%c : memref<?x64xf32>) attrs = {rlx.packed_rhs, rlx.scale_block_size = 32 : i64} {
  ^bb0(%x: f32, %q: f8E4M3FN, %s: f32, %acc: f32):
    %d = arith.extf %q : f8E4M3FN to f32
    %w = arith.mulf %d, %s : f32
    %p = arith.mulf %x, %w : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}


// -----

// Where the decoding reads the scale through ops of its own (an f16 scale
// widened), the chunk's row of scales is decoded first by a generic over
// the columns, and the chunk's generic reads the decoded row.
#sa = affine_map<(m, n, k) -> (m, k)>
#sc = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#ss = affine_map<(m, n, k) -> (n floordiv 32, k floordiv 32, n mod 32)>
#so = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func @matmul_block_scaled_scale_decoded_once
// CHECK: %[[BUF:.+]] = memref.alloc() {alignment = 64 : i64} : memref<64x32xf32>
// CHECK: %[[ROW:.+]] = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.+}} : memref<32xf16, {{.+}}>) outs(%[[ROW]] : memref<32xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[ROW]] : memref<32x32xf8E4M3FN, {{.+}}>, memref<32xf32>)
// CHECK-NOT: f16
// CHECK: linalg.yield
// CHECK: memref.dealloc %[[BUF]]
// CHECK: memref.dealloc %[[ROW]]
func.func @matmul_block_scaled_scale_decoded_once(%a: memref<16x64xf32>, %codes: memref<1x64x32xf8E4M3FN>, %scales: memref<1x2x32xf16>, %c: memref<16x32xf32>) {
  linalg.generic {indexing_maps = [#sa, #sc, #ss, #so], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %codes, %scales : memref<16x64xf32>, memref<1x64x32xf8E4M3FN>, memref<1x2x32xf16>) outs(%c : memref<16x32xf32>) attrs = {rlx.packed_rhs, rlx.scale_block_size = 32 : i64} {
  ^bb0(%x: f32, %q: f8E4M3FN, %s: f16, %acc: f32):
    %d = arith.extf %q : f8E4M3FN to f32
    %sf = arith.extf %s : f16 to f32
    %w = arith.mulf %d, %sf : f32
    %p = arith.mulf %x, %w : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// One or two rows (a GEMV) decode each weight in the product itself: per
// chunk of k and row, the sums of a*code (the code's value alone: the
// weight is code * scale) in a buffer of their own, cleared per row, then
// `c += sum * scale` once per chunk. A body whose weight is not a product
// by the scale sums whole weights instead.
#ga = affine_map<(m, n, k) -> (m, k)>
#gc = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#gs = affine_map<(m, n, k) -> (n floordiv 32, k floordiv 32, n mod 32)>
#go = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func @gemv_block_scaled
// CHECK: scf.for %[[PANEL:.+]] = %c0 to %c2 step %c1
// CHECK: %[[SUMS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
// CHECK: scf.for %[[CHUNK:.+]] = %c0 to %c3 step %c1
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[SUMS]] : memref<32xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.+}}, %{{.+}} : memref<32xf32, {{.+}}>, memref<32x32xf8E4M3FN, {{.+}}>) outs(%[[SUMS]] : memref<32xf32>)
// CHECK: arith.extf
// CHECK-NEXT: arith.mulf {{.*}} fastmath<contract>
// CHECK-NEXT: arith.addf {{.*}} fastmath<contract>
// CHECK: linalg.generic {{.*}} ins(%[[SUMS]], %{{.+}} : memref<32xf32>, memref<32xf32, {{.+}}>)
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: memref.dealloc %[[SUMS]]
// CHECK-LABEL: func @gemv_block_scaled_whole_weights
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.+}}, %{{.+}}, %{{.+}} : memref<32xf32, {{.+}}>, memref<32x32xf8E4M3FN, {{.+}}>, memref<32xf32, {{.+}}>)
// CHECK: arith.extf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.mulf {{.*}} fastmath<contract>
// CHECK-NEXT: arith.addf {{.*}} fastmath<contract>
// CHECK: linalg.generic
// CHECK-NOT: arith.mulf
// CHECK: arith.addf
func.func @gemv_block_scaled(%a: memref<1x96xf32>, %codes: memref<2x96x32xf8E4M3FN>, %scales: memref<2x3x32xf32>, %c: memref<1x64xf32>) {
  linalg.generic {indexing_maps = [#ga, #gc, #gs, #go], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %codes, %scales : memref<1x96xf32>, memref<2x96x32xf8E4M3FN>, memref<2x3x32xf32>) outs(%c : memref<1x64xf32>) attrs = {rlx.packed_rhs, rlx.scale_block_size = 32 : i64} {
  ^bb0(%x: f32, %q: f8E4M3FN, %s: f32, %acc: f32):
    %d = arith.extf %q : f8E4M3FN to f32
    %w = arith.mulf %d, %s : f32
    %p = arith.mulf %x, %w : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}
func.func @gemv_block_scaled_whole_weights(%a: memref<2x96xf32>, %codes: memref<2x96x32xf8E4M3FN>, %scales: memref<2x3x32xf32>, %c: memref<2x64xf32>) {
  linalg.generic {indexing_maps = [#ga, #gc, #gs, #go], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %codes, %scales : memref<2x96xf32>, memref<2x96x32xf8E4M3FN>, memref<2x3x32xf32>) outs(%c : memref<2x64xf32>) attrs = {rlx.packed_rhs, rlx.scale_block_size = 32 : i64} {
  ^bb0(%x: f32, %q: f8E4M3FN, %s: f32, %acc: f32):
    %d = arith.extf %q : f8E4M3FN to f32
    %e = arith.addf %d, %s : f32
    %w = arith.mulf %e, %s : f32
    %p = arith.mulf %x, %w : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An A of at most two register tiles of rows (an epilogue's row tile) is
// read in place, K block by K block, even through a strided view: no packed
// copy of A, no transpose; the panels are the parallel loop.
#ta = affine_map<(m, n, k) -> (m, k)>
#tp = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#tc = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func @matmul_prepacked_row_tile
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.transpose
// CHECK: scf.for %[[PAIR:.+]] = %c0 to %c32 step %c1
// CHECK: scf.for %[[TILE:.+]] = %c0 to %c2 step %c1
// CHECK: %[[ROW:.+]] = arith.muli %{{.+}}, %c8
// CHECK: scf.for %[[K:.+]] = %c0 to %c1024 step %c1
// CHECK: vector.transfer_read %arg0[%arg1, %[[ROW]], %[[K]]]{{.*}} vector<8x1xf32>
// CHECK: vector.fma
// CHECK: } {rlx.parallel}
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.generic
func.func @matmul_prepacked_row_tile(%x: memref<4x1024x1024xf32>, %i: index, %b: memref<32x1024x32xf32>, %c: memref<16x1024xf32>) {
  %a = memref.subview %x[%i, 0, 0] [1, 16, 1024] [1, 1, 1] : memref<4x1024x1024xf32> to memref<16x1024xf32, strided<[1024, 1], offset: ?>>
  linalg.generic {indexing_maps = [#ta, #tp, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x1024xf32, strided<[1024, 1], offset: ?>>, memref<32x1024x32xf32>) outs(%c : memref<16x1024xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x0: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x0, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A read through a collapse of a contiguous buffer (a 1x1 conv's NHWC input
// as [N*H*W, C]) becomes a reinterpret_cast, which folding memref aliases
// leaves alone: each row of a tile is one linear index, not a floor
// division and remainder per collapsed dim. A collapsed output is left to
// the C tile's handling.
// CHECK: #[[ROWS:.+]] = affine_map<()[s0] -> (s0 * 16)>
// CHECK-LABEL: func @matmul_collapsed_input
// CHECK-NOT: memref.collapse_shape
// CHECK: %[[N:.+]] = memref.dim %arg0, %c0 : memref<?x4x4x64xf32>
// CHECK: %[[M:.+]] = affine.apply #[[ROWS]]()[%[[N]]]
// CHECK: %[[A:.+]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%[[M]], 64], strides: [64, 1] : memref<?x4x4x64xf32> to memref<?x64xf32>
// CHECK-NOT: floordiv
// CHECK: vector.transfer_read %[[A]][%{{.+}}, %{{.+}}]{{.*}} vector<8x1xf32>
// CHECK-NOT: floordiv
// CHECK-LABEL: func @matmul_collapsed_output
// CHECK-NOT: memref.reinterpret_cast
// CHECK: memref.collapse_shape %arg2
func.func @matmul_collapsed_input(%x: memref<?x4x4x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  %a = memref.collapse_shape %x [[0, 1, 2], [3]] : memref<?x4x4x64xf32> into memref<?x64xf32>
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x64xf32>) outs(%c : memref<?x64xf32>)
  return
}
func.func @matmul_collapsed_output(%a: memref<16x64xf32>, %b: memref<64x64xf32>, %y: memref<1x4x4x64xf32>) {
  %c = memref.collapse_shape %y [[0, 1, 2], [3]] : memref<1x4x4x64xf32> into memref<16x64xf32>
  linalg.matmul ins(%a, %b : memref<16x64xf32>, memref<64x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// A matmul of bf16 inputs into f32 (a target without AVX512-BF16, whose
// dot-product pass did not take it) multiplies f32 copies of them, which
// the f32 schedule vectorizes; a dynamic dim is taken from the input.
// CHECK-LABEL: func @matmul_bf16_inputs
// CHECK: %[[M:.+]] = memref.dim %arg0, %c0 : memref<?x32xbf16>
// CHECK: %[[A:.+]] = memref.alloc(%[[M]]) {alignment = 64 : i64} : memref<?x32xf32>
// CHECK: linalg.map { arith.extf } ins(%arg0 : memref<?x32xbf16>) outs(%[[A]] : memref<?x32xf32>)
// CHECK: %[[B:.+]] = memref.alloc() {alignment = 64 : i64} : memref<32x64xf32>
// CHECK: linalg.map { arith.extf } ins(%arg1 : memref<32x64xbf16>) outs(%[[B]] : memref<32x64xf32>)
// CHECK: vector.transfer_read %[[A]]
// CHECK: vector.fma
// CHECK-NOT: linalg.matmul
// CHECK: memref.dealloc %[[A]]
// CHECK: memref.dealloc %[[B]]
func.func @matmul_bf16_inputs(%a: memref<?x32xbf16>, %b: memref<32x64xbf16>, %c: memref<?x64xf32>) {
  linalg.matmul ins(%a, %b : memref<?x32xbf16>, memref<32x64xbf16>) outs(%c : memref<?x64xf32>)
  return
}

// -----

// A product into a zero fill starts its register tiles from zeros: no
// fill of C, no read of it, the full tiles and the dynamic partial one
// alike (the partial tile's write keeps its mask).
// CHECK-LABEL: func @matmul_zero_filled
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.transfer_read %arg2
// CHECK: scf.for
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[ZERO]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_write %{{.+}}, %arg2[%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true, true]}
// CHECK: scf.for
// CHECK: %[[PARTIALZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[PARTIALZERO]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_write
// CHECK-NOT: vector.transfer_read %arg2
// CHECK: return
func.func @matmul_zero_filled(%a: memref<?x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x64xf32>)
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x64xf32>) outs(%c : memref<?x64xf32>)
  return
}

// -----

// Over K blocks (K 2048 in blocks of 1024), a tile starts from zeros in the
// first block and from its sums in C after.
// CHECK-LABEL: func @matmul_zero_filled_k_blocks
// CHECK-NOT: linalg.fill
// CHECK: scf.for %[[BLOCK:.+]] = %c0 to %c2 step %c1
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[BLOCK]], %c0
// CHECK: %[[START:.+]] = scf.if %[[FIRST]] -> (vector<8x32xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00>
// CHECK: scf.yield %[[ZERO]]
// CHECK: } else {
// CHECK: %[[SUMS:.+]] = vector.transfer_read %arg2
// CHECK: scf.yield %[[SUMS]]
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[START]])
// CHECK: vector.transfer_write {{.*}}, %arg2
func.func @matmul_zero_filled_k_blocks(%a: memref<64x2048xf32>, %b: memref<2048x1024xf32>, %c: memref<64x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x1024xf32>)
  linalg.matmul ins(%a, %b : memref<64x2048xf32>, memref<2048x1024xf32>) outs(%c : memref<64x1024xf32>)
  return
}

// -----

// The same for a batched product and a product by a prepacked weight.
// CHECK-LABEL: func @batch_matmul_zero_filled
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.transfer_read %arg2
// CHECK: scf.for
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<1x8x32xf32>
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.+}} = %[[ZERO]]) -> (vector<1x8x32xf32>)
// CHECK-LABEL: func @prepacked_zero_filled
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.transfer_read %arg2
// CHECK: scf.for
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.+}} = %[[ZERO]]) -> (vector<8x32xf32>)
// CHECK-NOT: linalg.generic
func.func @batch_matmul_zero_filled(%a: memref<3x16x64xf32>, %b: memref<3x64x64xf32>, %c: memref<3x16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x16x64xf32>)
  linalg.batch_matmul ins(%a, %b : memref<3x16x64xf32>, memref<3x64x64xf32>) outs(%c : memref<3x16x64xf32>)
  return
}
#za = affine_map<(m, n, k) -> (m, k)>
#zp = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#zc = affine_map<(m, n, k) -> (m, n)>
func.func @prepacked_zero_filled(%a: memref<16x256xf32>, %b: memref<2x256x32xf32>, %c: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32>)
  linalg.generic {indexing_maps = [#za, #zp, #zc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x256xf32>, memref<2x256x32xf32>) outs(%c : memref<16x64xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The fill stays, and C is read into the tiles, where the product does not
// start from it alone: a fill of another value, C read between the fill
// and the product, an input that is a view of C's buffer.
// CHECK-LABEL: func @matmul_filled_with_one
// CHECK: linalg.fill
// CHECK: vector.transfer_read %arg2
// CHECK-LABEL: func @matmul_fill_read_before
// CHECK: linalg.fill
// CHECK: memref.copy %arg2, %arg3
// CHECK: vector.transfer_read %arg2
// CHECK-LABEL: func @matmul_fill_input_aliases
// CHECK: linalg.fill
// CHECK: vector.transfer_read %alloc[{{.*}} vector<8x32xf32>
func.func @matmul_filled_with_one(%a: memref<16x64xf32>, %b: memref<64x64xf32>, %c: memref<16x64xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<16x64xf32>)
  linalg.matmul ins(%a, %b : memref<16x64xf32>, memref<64x64xf32>) outs(%c : memref<16x64xf32>)
  return
}
func.func @matmul_fill_read_before(%a: memref<16x64xf32>, %b: memref<64x64xf32>, %c: memref<16x64xf32>, %copy: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32>)
  memref.copy %c, %copy : memref<16x64xf32> to memref<16x64xf32>
  linalg.matmul ins(%a, %b : memref<16x64xf32>, memref<64x64xf32>) outs(%c : memref<16x64xf32>)
  return
}
func.func @matmul_fill_input_aliases(%b: memref<64x64xf32>) -> memref<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %buffer = memref.alloc() : memref<32x64xf32>
  %a = memref.subview %buffer[0, 0] [16, 64] [1, 1] : memref<32x64xf32> to memref<16x64xf32, strided<[64, 1]>>
  %c = memref.subview %buffer[16, 0] [16, 64] [1, 1] : memref<32x64xf32> to memref<16x64xf32, strided<[64, 1], offset: 1024>>
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32, strided<[64, 1], offset: 1024>>)
  linalg.matmul ins(%a, %b : memref<16x64xf32, strided<[64, 1]>>, memref<64x64xf32>) outs(%c : memref<16x64xf32, strided<[64, 1], offset: 1024>>)
  %out = memref.alloc() : memref<16x64xf32>
  memref.copy %c, %out : memref<16x64xf32, strided<[64, 1], offset: 1024>> to memref<16x64xf32>
  return %out : memref<16x64xf32>
}

// -----

// With tall tiles (tall-tile-m), a product whose whole row tiles form one
// block of A read in place takes them: 49 rows are three 14-row tiles
// (each C tile 14 vectors, from zero in the first of the three K blocks)
// and 7 rows in a masked tile of the usual 8; without the option, six
// 8-row tiles and the 49th row.
// TALL-LABEL: func @matmul_tall_tiles
// TALL-NOT: linalg.fill
// TALL: scf.for %[[KB:.+]] = %c0 to %c3 step %c1
// TALL: %[[FIRST:.+]] = arith.cmpi eq, %[[KB]], %c0
// TALL: scf.for %{{.+}} = %c0 to %c17 step %c1
// TALL: scf.for %{{.+}} = %c0 to %c3 step %c1
// TALL: scf.if %[[FIRST]] -> (vector<14x32xf32>)
// TALL: scf.for %{{.+}} = %c0 to %c512 step %c1 iter_args(%{{.+}}) -> (vector<14x32xf32>)
// TALL: vector.transfer_read %arg0[{{.*}}]{{.*}}vector<14x1xf32>
// TALL-COUNT-14: vector.fma
// TALL: vector.transfer_write %{{.+}}, %arg2[{{.*}}] {in_bounds = [true, true]} : vector<14x32xf32>
// TALL: vector.transfer_read %arg0[%c42, {{.*}}]{{.*}}vector<8x1xf32>
// TALL: } {rlx.parallel}
// CHECK-LABEL: func @matmul_tall_tiles
// CHECK-NOT: vector<14x32xf32>
// CHECK: scf.for %{{.+}} = %c0 to %c6 step %c1
// CHECK-NOT: vector<14x32xf32>
// CHECK: return
func.func @matmul_tall_tiles(%a: memref<49x1536xf32>, %b: memref<1536x544xf32>, %c: memref<49x544xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<49x544xf32>)
  linalg.matmul ins(%a, %b : memref<49x1536xf32>, memref<1536x544xf32>) outs(%c : memref<49x544xf32>)
  return
}
