// RUN: rlx-opt %s -split-input-file -rlx-cpu-vectorize-loops | FileCheck %s

// A fused elementwise chain over a dynamic size walks 16 f32 lanes at a
// time with a mask for the last partial tile (no scalar remainder loop),
// and tanh becomes a polynomial on vectors instead of 16 libm calls.
// CHECK-LABEL: func @elementwise_dynamic
// CHECK: scf.for {{.*}} step %c16
// CHECK: vector.create_mask {{.*}} : vector<16xi1>
// CHECK: vector.transfer_read {{.*}} : memref<?xf32, {{.*}}>, vector<16xf32>
// CHECK: arith.mulf {{.*}} : vector<16xf32>
// CHECK-NOT: math.tanh
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, memref<?xf32
// CHECK-NOT: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @elementwise_dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 1.5 : f32
    %m = arith.mulf %in, %c : f32
    %t = math.tanh %m : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// f64 takes 8 lanes; its tanh keeps libm (the approximations are f32-only).
// CHECK-LABEL: func @elementwise_f64
// CHECK: scf.for {{.*}} step %c8
// CHECK: math.tanh {{.*}} : vector<8xf64>
#id = affine_map<(d0) -> (d0)>
func.func @elementwise_f64(%x: memref<100xf64>, %y: memref<100xf64>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<100xf64>) outs(%y : memref<100xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = math.tanh %in : f64
    linalg.yield %t : f64
  }
  return
}

// -----

// A reduction over the outer axis (a bias gradient) is vector-wide along
// the kept axis: one vector add per row, no horizontal reduction.
// CHECK-LABEL: func @column_sum
// CHECK: scf.for
// CHECK: scf.for {{.*}} step %c16
// CHECK: vector.transfer_read
// CHECK: vector.transfer_read
// CHECK: arith.addf {{.*}} : vector<16xf32>
// CHECK-NOT: vector.reduction
// CHECK: vector.transfer_write
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>
func.func @column_sum(%x: memref<?x100xf32>, %y: memref<100xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<?x100xf32>) outs(%y : memref<100xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction over the inner axis (softmax's row max) carries 16 partial
// maxima through the row (masked lanes contribute -inf) and reduces them
// horizontally once per row, into the row's accumulator.
// CHECK-LABEL: func @row_max
// CHECK: scf.for
// CHECK: %[[INIT:.+]] = memref.load
// CHECK: %[[PARTIAL:.+]] = scf.for {{.*}} step %c16 iter_args(%[[ACC:.+]] = %{{.+}}) -> (vector<16xf32>)
// CHECK: %[[LANES:.+]] = arith.select %{{.+}}, %{{.+}}, %{{.+}} : vector<16xi1>, vector<16xf32>
// CHECK: %[[NEXT:.+]] = arith.maximumf %[[LANES]], %[[ACC]] : vector<16xf32>
// CHECK: scf.yield %[[NEXT]]
// CHECK: %[[MAX:.+]] = vector.reduction <maximumf>, %[[PARTIAL]], %[[INIT]]
// CHECK: memref.store %[[MAX]]
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @row_max(%x: memref<?x100xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x100xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %in, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A gather reads another buffer inside its body and i1 buffers pack bits in
// vectors: both stay scalar loops (later lowered by linalg-to-loops).
// CHECK-LABEL: func @stays_scalar
// CHECK: linalg.generic
// CHECK: memref.load
// CHECK: linalg.generic
// CHECK-SAME: memref<8xi1>
#id = affine_map<(d0) -> (d0)>
func.func @stays_scalar(%table: memref<10xf32>, %idx: memref<8xindex>, %y: memref<8xf32>,
                        %a: memref<8xf32>, %m: memref<8xi1>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%idx : memref<8xindex>) outs(%y : memref<8xf32>) {
  ^bb0(%i: index, %out: f32):
    %v = memref.load %table[%i] : memref<10xf32>
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%m : memref<8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %in, %z : f32
    linalg.yield %c : i1
  }
  return
}

// -----

// An im2col copy (C = 16) reads at oh * 2 + kh and ow * 2 * C + j: in a tile where
// oh, ow and kh have one iteration each, those are 0 and j, so the tile is
// vectorized (16 consecutive values per step) instead of staying scalar.
// CHECK-LABEL: func @im2col_copy
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} vector<16xf32>
// CHECK: vector.transfer_write {{.*}} vector<16xf32>
// CHECK-NOT: linalg.generic
func.func @im2col_copy(%x: memref<1x9x144xf32>, %p: memref<1x4x4x3x48xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d3, d2 * 32 + d4)>,
                                   affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x9x144xf32>) outs(%p : memref<1x4x4x3x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A window read whose innermost loop is not the map's last result (pooling
// over kw reads along W, a stride of C) is left alone: the tile stays a
// generic, lowered to scalar loops later.
// CHECK-LABEL: func @pool_window_scalar
// CHECK-NOT: vector.transfer_read
// CHECK: linalg.generic
// CHECK-NOT: vector.transfer_read
func.func @pool_window_scalar(%x: memref<1x4x4x2xf32>, %w: memref<2x2xf32>, %y: memref<1x3x3x2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d4, d2 + d5, d3)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : memref<1x4x4x2xf32>, memref<2x2xf32>) outs(%y : memref<1x3x3x2xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A reduction whose combiner ignores its input (a count) stays scalar: the
// vectorizer would add the constant once per vector of iterations.
// CHECK-LABEL: func @count
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
func.func @count(%x: memref<?xf32>, %n: memref<f32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<?xf32>) outs(%n : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %one : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A batch of 1 is skipped when marking the loop that may run in parallel:
// an NHWC elementwise op at batch 1 forks over its rows, not over the unit
// batch (whose loop has one iteration: every such op ran on one thread).
// CHECK-LABEL: func @batch_one_rows_parallel
// CHECK: scf.for %{{.+}} = %c0 to %c1 step %c1 {
// CHECK-NEXT: scf.for %{{.+}} = %c0 to %c56 step %c1 {
// CHECK: } {rlx.parallel}
// CHECK-NEXT: }{{$}}
#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @batch_one_rows_parallel(%x: memref<1x56x56x64xf32>, %y: memref<1x56x56x64xf32>) {
  linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x56x56x64xf32>) outs(%y : memref<1x56x56x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.0 : f32
    %r = arith.maximumf %in, %c : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A transpose reads its operand with the two innermost loops swapped: it is
// tiled 16 x 16, read as 16 whole rows, transposed in registers with
// shuffles and written as 16 rows (a 1 x 16 tile read 16 rows for one
// element each, and rows 2 KiB apart evicted each other from the cache).
// CHECK-LABEL: func @transpose_tiles
// CHECK: scf.for {{.*}} step %c16
// CHECK: scf.for {{.*}} step %c16
// CHECK: vector.transfer_read {{.*}} : memref<16x16xf32, strided<[128, 1], offset: ?>>, vector<16x16xf32>
// CHECK: vector.shuffle {{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29] : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector.transpose
// CHECK: vector.transfer_write {{.*}} : vector<16x16xf32>, memref<16x16xf32, strided<[512, 1], offset: ?>>
func.func @transpose_tiles(%x: memref<512x128xf32>, %y: memref<128x512xf32>) {
  linalg.transpose ins(%x : memref<512x128xf32>) outs(%y : memref<128x512xf32>) permutation = [1, 0]
  return
}

// -----

// 16-bit elements keep 1 x 32 tiles: a 32 x 32 tile would be 1024 elements
// moved one by one.
// CHECK-LABEL: func @transpose_f16_rows
// CHECK: scf.for {{.*}} step %c1
// CHECK: scf.for {{.*}} step %c32
// CHECK-NOT: vector<32x32xf16>
func.func @transpose_f16_rows(%x: memref<64x32xf16>, %y: memref<32x64xf16>) {
  linalg.transpose ins(%x : memref<64x32xf16>) outs(%y : memref<32x64xf16>) permutation = [1, 0]
  return
}

// -----

// A reduction over k into two vectors' worth of columns (the sums of a
// GEMV by a 32-column weight panel): the columns are one vector<32xf32>
// tile with no loop of their own, the sums stay in registers across the k
// loop (iter_args, no transfer inside), the cleared and the read sums are
// whole-buffer transfers too, and the add of a product marked `contract`
// is one fused multiply-add.
// CHECK-LABEL: func @column_sums_in_registers
// CHECK: vector.transfer_write %{{.+}}, %arg2[%c0] {{.*}} : vector<32xf32>, memref<32xf32>
// CHECK: %[[INIT:.+]] = vector.transfer_read %arg2[%c0]{{.*}} vector<32xf32>
// CHECK: %[[SUMS:.+]] = scf.for %{{.+}} = %c0 to %c64 step %c1 iter_args(%[[ACC:.+]] = %[[INIT]]) -> (vector<32xf32>)
// CHECK-NOT: vector.transfer_write
// CHECK: math.fma %{{.+}}, %{{.+}}, %[[ACC]] : vector<32xf32>
// CHECK: scf.yield
// CHECK: vector.transfer_write %[[SUMS]], %arg2[%c0]
// CHECK: vector.transfer_read %arg2[%c0]{{.*}} vector<32xf32>
func.func @column_sums_in_registers(%a: memref<64xf32>, %w: memref<64x32xf32>, %sums: memref<32xf32>, %out: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%sums : memref<32xf32>)
  linalg.generic {indexing_maps = [affine_map<(k, n) -> (k)>, affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (n)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a, %w : memref<64xf32>, memref<64x32xf32>) outs(%sums : memref<32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y fastmath<contract> : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(n) -> (n)>, affine_map<(n) -> (n)>], iterator_types = ["parallel"]}
      ins(%sums : memref<32xf32>) outs(%out : memref<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A max pool as rlx-to-linalg makes it (window dims between the output's
// pixels and its channels): the window loops run innermost and carry the
// output vector in a register, read once before them and written once
// after (tiled in the op's order, each window element read and wrote it
// back).
// CHECK-LABEL: func @pool_window_in_registers
// CHECK:         scf.for %[[C:.+]] = %{{.+}} to %{{.+}} step %c16
// CHECK:           %[[INIT:.+]] = vector.transfer_read %alloc[%{{.+}}, %{{.+}}, %{{.+}}, %[[C]]]
// CHECK:           %[[ROWS:.+]] = scf.for {{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (vector<16xf32>)
// CHECK:             scf.for {{.+}} iter_args(%[[INNER:.+]] = %[[ACC]]) -> (vector<16xf32>)
// CHECK:               %[[X:.+]] = vector.transfer_read %arg0
// CHECK:               arith.maximumf %[[X]], %[[INNER]] : vector<16xf32>
// CHECK-NOT:           vector.transfer_write
// CHECK:           vector.transfer_write %[[ROWS]], %alloc[%{{.+}}, %{{.+}}, %{{.+}}, %[[C]]]
func.func @pool_window_in_registers(%x: memref<2x9x9x64xf32>, %w: memref<3x3xf32>) -> memref<2x4x4x64xf32> {
  %y = memref.alloc() : memref<2x4x4x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<2x9x9x64xf32>, memref<3x3xf32>) outs(%y : memref<2x4x4x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  return %y : memref<2x4x4x64xf32>
}

// -----

// The same window over an output that is no allocation of its own (a
// function argument, which another argument may alias): the loops still
// run in that order, but the output is read and written back in them.
// CHECK-LABEL: func @pool_window_output_argument
// CHECK:         scf.for {{.+}} step %c16
// CHECK-NOT:       iter_args
// CHECK:           arith.maximumf
// CHECK:           vector.transfer_write
func.func @pool_window_output_argument(%x: memref<2x9x9x64xf32>, %w: memref<3x3xf32>, %y: memref<2x4x4x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<2x9x9x64xf32>, memref<3x3xf32>) outs(%y : memref<2x4x4x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  return
}
