// RUN: rlx-opt %s -split-input-file -rlx-cpu-filter-gradient-rows | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-cpu-filter-gradient-rows="min-row-pixels=32" | FileCheck %s --check-prefix=SHORT

// Two taps of a conv's filter gradient (as its VJP leaves them: a strided
// slice of the padded input, and the unpadded input itself for the centre
// tap, each flattened and transposed, times the flattened output
// gradient): one loop over 2 chunks of 8 of the 16 output rows (2 images
// of 8; a chunk has 8 rows or more), in parallel; per row, the output gradient's row [16, 24] and each
// tap's input row [16, 8] (a strided view), the product with A read
// transposed into the tap's partial sum; the chunks' sums added.
// CHECK-DAG: #[[KM:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[KN:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @two_taps
// CHECK-NOT: linalg.transpose
// CHECK: %[[PARTIALS:.+]] = linalg.fill {{.*}} -> tensor<2x2x8x24xf32>
// CHECK: %[[CHUNKS:.+]] = scf.for %[[CHUNK:.+]] = %c0{{(_[0-9]+)?}} to %c2{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args(%{{.+}} = %[[PARTIALS]])
// CHECK: scf.for %[[ROW:[a-z0-9_]+]] =
// CHECK: arith.divui %[[ROW]], %c8
// CHECK: arith.remui %[[ROW]], %c8
// CHECK: %[[G:.+]] = tensor.extract_slice %arg2[{{.+}}, {{.+}}, 0, 0] [1, 1, 16, 24] [1, 1, 1, 1] : tensor<2x8x16x24xf32> to tensor<16x24xf32>
// CHECK: %[[A0:.+]] = tensor.extract_slice %arg0[{{.+}}, {{.+}}, 0, 0] [1, 1, 16, 8] [1, 1, 2, 1] : tensor<2x10x34x8xf32> to tensor<16x8xf32>
// CHECK: linalg.matmul indexing_maps = [#[[KM]], #[[KN]], #[[MN]]] ins(%[[A0]], %[[G]] : tensor<16x8xf32>, tensor<16x24xf32>)
// CHECK: %[[A1:.+]] = tensor.extract_slice %arg1[{{.+}}, {{.+}}, 0, 0] [1, 1, 16, 8] [1, 1, 1, 1] : tensor<2x8x16x8xf32> to tensor<16x8xf32>
// CHECK: linalg.matmul indexing_maps = [#[[KM]], #[[KN]], #[[MN]]] ins(%[[A1]], %[[G]] : tensor<16x8xf32>, tensor<16x24xf32>)
// CHECK: } {rlx.parallel}
// CHECK: %[[SUM:.+]] = linalg.reduce ins(%[[CHUNKS]] : tensor<2x2x8x24xf32>) outs(%{{.+}} : tensor<2x8x24xf32>) dimensions = [0]
// CHECK: tensor.extract_slice %[[SUM]][0, 0, 0] [1, 8, 24]
// CHECK: tensor.extract_slice %[[SUM]][1, 0, 0] [1, 8, 24]
// SHORT-LABEL: func @two_taps
// SHORT-COUNT-2: linalg.transpose
// SHORT-NOT: scf.for
func.func @two_taps(%xp: tensor<2x10x34x8xf32>, %x: tensor<2x8x16x8xf32>, %g: tensor<2x8x16x24xf32>) -> (tensor<8x24xf32>, tensor<8x24xf32>) {
  %zero = arith.constant 0.0 : f32
  %gc = tensor.collapse_shape %g [[0, 1, 2], [3]] : tensor<2x8x16x24xf32> into tensor<256x24xf32>
  %s0 = tensor.extract_slice %xp[0, 0, 0, 0] [2, 8, 16, 8] [1, 1, 2, 1] : tensor<2x10x34x8xf32> to tensor<2x8x16x8xf32>
  %c0 = tensor.collapse_shape %s0 [[0, 1, 2], [3]] : tensor<2x8x16x8xf32> into tensor<256x8xf32>
  %e0 = tensor.empty() : tensor<8x256xf32>
  %t0 = linalg.transpose ins(%c0 : tensor<256x8xf32>) outs(%e0 : tensor<8x256xf32>) permutation = [1, 0]
  %o0 = tensor.empty() : tensor<8x24xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%o0 : tensor<8x24xf32>) -> tensor<8x24xf32>
  %m0 = linalg.matmul ins(%t0, %gc : tensor<8x256xf32>, tensor<256x24xf32>) outs(%f0 : tensor<8x24xf32>) -> tensor<8x24xf32>
  %c1 = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<2x8x16x8xf32> into tensor<256x8xf32>
  %e1 = tensor.empty() : tensor<8x256xf32>
  %t1 = linalg.transpose ins(%c1 : tensor<256x8xf32>) outs(%e1 : tensor<8x256xf32>) permutation = [1, 0]
  %o1 = tensor.empty() : tensor<8x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%o1 : tensor<8x24xf32>) -> tensor<8x24xf32>
  %m1 = linalg.matmul ins(%t1, %gc : tensor<8x256xf32>, tensor<256x24xf32>) outs(%f1 : tensor<8x24xf32>) -> tensor<8x24xf32>
  return %m0, %m1 : tensor<8x24xf32>, tensor<8x24xf32>
}

// -----

// One tap (a 1x1 conv's filter gradient, contiguous matrices): taken
// while its sums are small (8x24 here), one partial sum per chunk.
// CHECK-LABEL: func @one_tap
// CHECK-NOT: linalg.transpose
// CHECK: } {rlx.parallel}
// CHECK: linalg.reduce ins(%{{.+}} : tensor<2x1x8x24xf32>)
func.func @one_tap(%x: tensor<2x8x16x8xf32>, %g: tensor<2x8x16x24xf32>) -> tensor<8x24xf32> {
  %zero = arith.constant 0.0 : f32
  %gc = tensor.collapse_shape %g [[0, 1, 2], [3]] : tensor<2x8x16x24xf32> into tensor<256x24xf32>
  %c1 = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<2x8x16x8xf32> into tensor<256x8xf32>
  %e1 = tensor.empty() : tensor<8x256xf32>
  %t1 = linalg.transpose ins(%c1 : tensor<256x8xf32>) outs(%e1 : tensor<8x256xf32>) permutation = [1, 0]
  %o1 = tensor.empty() : tensor<8x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%o1 : tensor<8x24xf32>) -> tensor<8x24xf32>
  %m1 = linalg.matmul ins(%t1, %gc : tensor<8x256xf32>, tensor<256x24xf32>) outs(%f1 : tensor<8x24xf32>) -> tensor<8x24xf32>
  return %m1 : tensor<8x24xf32>
}

// -----

// Left alone: one tap whose sums, 512 x 256, pass 256 KiB (the packed
// matmul schedule reads its contiguous operands better), and two taps into
// a nonzero start.
// CHECK-LABEL: func @left_alone
// CHECK-NOT: scf.for
// CHECK-COUNT-3: linalg.transpose
func.func @left_alone(%x: tensor<2x8x16x512xf32>, %g: tensor<2x8x16x256xf32>, %y: tensor<2x8x16x8xf32>, %h: tensor<2x8x16x24xf32>, %start: tensor<8x24xf32>) -> (tensor<512x256xf32>, tensor<8x24xf32>, tensor<8x24xf32>) {
  %zero = arith.constant 0.0 : f32
  %gc = tensor.collapse_shape %g [[0, 1, 2], [3]] : tensor<2x8x16x256xf32> into tensor<256x256xf32>
  %c1 = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<2x8x16x512xf32> into tensor<256x512xf32>
  %e1 = tensor.empty() : tensor<512x256xf32>
  %t1 = linalg.transpose ins(%c1 : tensor<256x512xf32>) outs(%e1 : tensor<512x256xf32>) permutation = [1, 0]
  %o1 = tensor.empty() : tensor<512x256xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%o1 : tensor<512x256xf32>) -> tensor<512x256xf32>
  %m1 = linalg.matmul ins(%t1, %gc : tensor<512x256xf32>, tensor<256x256xf32>) outs(%f1 : tensor<512x256xf32>) -> tensor<512x256xf32>
  %hc = tensor.collapse_shape %h [[0, 1, 2], [3]] : tensor<2x8x16x24xf32> into tensor<256x24xf32>
  %yc = tensor.collapse_shape %y [[0, 1, 2], [3]] : tensor<2x8x16x8xf32> into tensor<256x8xf32>
  %e2 = tensor.empty() : tensor<8x256xf32>
  %t2 = linalg.transpose ins(%yc : tensor<256x8xf32>) outs(%e2 : tensor<8x256xf32>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<8x256xf32>
  %t3 = linalg.transpose ins(%yc : tensor<256x8xf32>) outs(%e3 : tensor<8x256xf32>) permutation = [1, 0]
  %m2 = linalg.matmul ins(%t2, %hc : tensor<8x256xf32>, tensor<256x24xf32>) outs(%start : tensor<8x24xf32>) -> tensor<8x24xf32>
  %m3 = linalg.matmul ins(%t3, %hc : tensor<8x256xf32>, tensor<256x24xf32>) outs(%start : tensor<8x24xf32>) -> tensor<8x24xf32>
  return %m1, %m2, %m3 : tensor<512x256xf32>, tensor<8x24xf32>, tensor<8x24xf32>
}
