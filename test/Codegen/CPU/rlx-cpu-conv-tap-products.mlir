// RUN: rlx-opt %s -split-input-file -rlx-cpu-conv-tap-products="row-outer-bytes=0" | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-cpu-conv-tap-products | FileCheck %s --check-prefix=ROWOUTER
// RUN: rlx-opt %s -split-input-file -rlx-cpu-conv-tap-products="min-tap-depth=32" | FileCheck %s --check-prefix=DEPTH32

// A 3x3 conv padded by 1 over a 4x5x64 image, 64 output channels: two
// column groups of 32 (parallel), then images, kh, the output rows whose
// input row for kh is inside the image (max(0, 1 - kh) to min(4, 5 - kh)),
// and the three kw taps unrolled. Tap kw = 0 reads output columns 1..4
// from input columns 0..3, kw = 1 all five, kw = 2 columns 0..3 from input
// columns 1..4; each tap's B is the filter's 64 rows at kh * 192 + kw * 64
// of the group's columns. The im2col copy is gone.

// By default the group's filter for every tap (3 * 3 * 64 * 32 floats,
// 72 KiB) is under row-outer-bytes: the output rows are the outer loop,
// each taking the kh whose input row is inside the image
// (max(0, 1 - oh) to min(3, 5 - oh)), then the same three kw taps.
// ROWOUTER-DAG: #[[KHLO:.+]] = affine_map<(d0) -> (0, -d0 + 1)>
// ROWOUTER-DAG: #[[KHHI:.+]] = affine_map<(d0) -> (3, -d0 + 5)>
// ROWOUTER-DAG: #[[INROW:.+]] = affine_map<(d0, d1) -> (d0 + d1 - 1)>
// ROWOUTER-LABEL: func @taps_3x3
// ROWOUTER: scf.for %[[G:.+]] = %{{.+}} to %c2 step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (tensor<20x64xf32>)
// ROWOUTER: scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step
// ROWOUTER: scf.for %[[OH:.+]] = %{{.+}} to %c4 step
// ROWOUTER: %[[FIRST:.+]] = affine.max #[[KHLO]](%[[OH]])
// ROWOUTER: %[[LAST:.+]] = affine.min #[[KHHI]](%[[OH]])
// ROWOUTER: scf.for %[[KH:.+]] = %[[FIRST]] to %[[LAST]] step
// ROWOUTER: affine.apply #[[INROW]](%[[OH]], %[[KH]])
// ROWOUTER-COUNT-3: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<{{[45]}}x64xf32>, tensor<64x32xf32>)
// ROWOUTER: } {rlx.parallel}
// ROWOUTER-NOT: linalg.matmul
// ROWOUTER: return
// CHECK-DAG: #[[LO:.+]] = affine_map<(d0) -> (0, -d0 + 1)>
// CHECK-DAG: #[[HI:.+]] = affine_map<(d0) -> (4, -d0 + 5)>
// CHECK-DAG: #[[INROW:.+]] = affine_map<(d0, d1) -> (d0 + d1 - 1)>
// CHECK-DAG: #[[ROW1:.+]] = affine_map<(d0, d1) -> ((d0 * 4 + d1) * 5 + 1)>
// CHECK-DAG: #[[ROW0:.+]] = affine_map<(d0, d1) -> ((d0 * 4 + d1) * 5)>
// CHECK-DAG: #[[TAP0:.+]] = affine_map<(d0) -> (d0 * 192)>
// CHECK-DAG: #[[TAP1:.+]] = affine_map<(d0) -> (d0 * 192 + 64)>
// CHECK-DAG: #[[TAP2:.+]] = affine_map<(d0) -> (d0 * 192 + 128)>
// CHECK-LABEL: func @taps_3x3
// CHECK: %[[FILTER:.+]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1, 2], [3]] : tensor<3x3x64x64xf32> into tensor<576x64xf32>
// CHECK-NOT: linalg.generic
// CHECK: %[[GROUPS:.+]] = scf.for %[[G:.+]] = %{{.+}} to %c2 step %{{.+}} iter_args(%[[OUT:.+]] = %{{.+}}) -> (tensor<20x64xf32>)
// CHECK: %[[COL:.+]] = arith.muli %[[G]], %c32
// CHECK: %[[GROUP:.+]] = tensor.extract_slice %[[OUT]][0, %[[COL]]] [20, 32] [1, 1]
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[GROUP]] : tensor<20x32xf32>)
// CHECK: scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[ZERO]])
// CHECK: scf.for %[[KH:.+]] = %{{.+}} to %c3
// CHECK: %[[FIRST:.+]] = affine.max #[[LO]](%[[KH]])
// CHECK: %[[LAST:.+]] = affine.min #[[HI]](%[[KH]])
// CHECK: scf.for %[[OH:.+]] = %[[FIRST]] to %[[LAST]] step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}})
// CHECK: %[[IN:.+]] = affine.apply #[[INROW]](%[[OH]], %[[KH]])
// CHECK: %[[A0:.+]] = tensor.extract_slice %arg0[%[[N]], %[[IN]], 0, 0] [1, 1, 4, 64] [1, 1, 1, 1] : tensor<1x4x5x64xf32> to tensor<4x64xf32>
// CHECK: %[[R0:.+]] = affine.apply #[[ROW1]](%[[N]], %[[OH]])
// CHECK: %[[C0:.+]] = tensor.extract_slice %[[ACC]][%[[R0]], 0] [4, 32] [1, 1]
// CHECK: %[[K0:.+]] = affine.apply #[[TAP0]](%[[KH]])
// CHECK: %[[B0:.+]] = tensor.extract_slice %[[FILTER]][%[[K0]], %[[COL]]] [64, 32] [1, 1] : tensor<576x64xf32> to tensor<64x32xf32>
// CHECK: %[[P0:.+]] = linalg.matmul ins(%[[A0]], %[[B0]] : tensor<4x64xf32>, tensor<64x32xf32>) outs(%[[C0]] : tensor<4x32xf32>)
// CHECK: %[[ACC0:.+]] = tensor.insert_slice %[[P0]] into %[[ACC]][%[[R0]], 0] [4, 32] [1, 1]
// CHECK: tensor.extract_slice %arg0[%[[N]], %[[IN]], 0, 0] [1, 1, 5, 64] [1, 1, 1, 1] : tensor<1x4x5x64xf32> to tensor<5x64xf32>
// CHECK: affine.apply #[[ROW0]](%[[N]], %[[OH]])
// CHECK: affine.apply #[[TAP1]](%[[KH]])
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<5x64xf32>, tensor<64x32xf32>)
// CHECK: tensor.extract_slice %arg0[%[[N]], %[[IN]], 1, 0] [1, 1, 4, 64] [1, 1, 1, 1] : tensor<1x4x5x64xf32> to tensor<4x64xf32>
// CHECK: affine.apply #[[ROW0]](%[[N]], %[[OH]])
// CHECK: affine.apply #[[TAP2]](%[[KH]])
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x64xf32>, tensor<64x32xf32>)
// CHECK: tensor.insert_slice %{{.+}} into %[[OUT]][0, %[[COL]]] [20, 32] [1, 1]
// CHECK: } {rlx.parallel}
// CHECK: tensor.expand_shape %[[GROUPS]]
// CHECK-NOT: linalg.matmul
// CHECK: return

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 * 64 + d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @taps_3x3(%arg0: tensor<1x4x5x64xf32>, %arg1: tensor<3x3x64x64xf32>) -> tensor<1x4x5x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x6x7x64xf32>
  %1 = tensor.empty() : tensor<1x1x7x64xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x1x7x64xf32>) -> tensor<1x1x7x64xf32>
  %inserted_slice = tensor.insert_slice %2 into %0[0, 0, 0, 0] [1, 1, 7, 64] [1, 1, 1, 1] : tensor<1x1x7x64xf32> into tensor<1x6x7x64xf32>
  %3 = tensor.empty() : tensor<1x1x7x64xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x7x64xf32>) -> tensor<1x1x7x64xf32>
  %inserted_slice_0 = tensor.insert_slice %4 into %inserted_slice[0, 5, 0, 0] [1, 1, 7, 64] [1, 1, 1, 1] : tensor<1x1x7x64xf32> into tensor<1x6x7x64xf32>
  %5 = tensor.empty() : tensor<1x4x1x64xf32>
  %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<1x4x1x64xf32>) -> tensor<1x4x1x64xf32>
  %inserted_slice_1 = tensor.insert_slice %6 into %inserted_slice_0[0, 1, 0, 0] [1, 4, 1, 64] [1, 1, 1, 1] : tensor<1x4x1x64xf32> into tensor<1x6x7x64xf32>
  %7 = tensor.empty() : tensor<1x4x1x64xf32>
  %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<1x4x1x64xf32>) -> tensor<1x4x1x64xf32>
  %inserted_slice_2 = tensor.insert_slice %8 into %inserted_slice_1[0, 1, 6, 0] [1, 4, 1, 64] [1, 1, 1, 1] : tensor<1x4x1x64xf32> into tensor<1x6x7x64xf32>
  %inserted_slice_3 = tensor.insert_slice %arg0 into %inserted_slice_2[0, 1, 1, 0] [1, 4, 5, 64] [1, 1, 1, 1] : tensor<1x4x5x64xf32> into tensor<1x6x7x64xf32>
  %collapsed = tensor.collapse_shape %inserted_slice_3 [[0], [1], [2, 3]] : tensor<1x6x7x64xf32> into tensor<1x6x448xf32>
  %9 = tensor.empty() : tensor<1x4x5x3x192xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x6x448xf32>) outs(%9 : tensor<1x4x5x3x192xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x5x3x192xf32>
  %collapsed_4 = tensor.collapse_shape %10 [[0, 1, 2], [3, 4]] : tensor<1x4x5x3x192xf32> into tensor<20x576xf32>
  %collapsed_5 = tensor.collapse_shape %arg1 [[0, 1, 2], [3]] : tensor<3x3x64x64xf32> into tensor<576x64xf32>
  %11 = tensor.empty() : tensor<20x64xf32>
  %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<20x64xf32>) -> tensor<20x64xf32>
  %13 = linalg.matmul ins(%collapsed_4, %collapsed_5 : tensor<20x576xf32>, tensor<576x64xf32>) outs(%12 : tensor<20x64xf32>) -> tensor<20x64xf32>
  %expanded = tensor.expand_shape %13 [[0, 1, 2], [3]] output_shape [1, 4, 5, 64] : tensor<20x64xf32> into tensor<1x4x5x64xf32>
  return %expanded : tensor<1x4x5x64xf32>
}

// -----

// A dynamic batch: the images loop runs to the input's N, the product's
// rows are N * 20, both read from the input itself.
// CHECK-DAG: #[[ROWS:.+]] = affine_map<()[s0] -> (s0 * 20)>
// ROWOUTER-LABEL: func @taps_dynamic_batch
// CHECK-LABEL: func @taps_dynamic_batch
// CHECK-NOT: scf.for
// CHECK: tensor.dim %arg0
// CHECK: %[[R:.+]] = affine.apply #[[ROWS]]()[%[[N:dim_[0-9]+]]]
// CHECK: tensor.empty(%[[R]]) : tensor<?x64xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %c2 step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (tensor<?x64xf32>)
// CHECK: scf.for %{{.+}} = %{{.+}} to %dim_{{[0-9]+}} step
// CHECK-COUNT-3: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<{{[45]}}x64xf32>, tensor<64x32xf32>)
// CHECK: } {rlx.parallel}

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 * 64 + d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @taps_dynamic_batch(%arg0: tensor<?x4x5x64xf32>, %arg1: tensor<3x3x64x64xf32>) -> tensor<?x4x5x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %arg0, %c0 : tensor<?x4x5x64xf32>
  %dim_0 = tensor.dim %arg0, %c0 : tensor<?x4x5x64xf32>
  %0 = tensor.empty(%dim_0) : tensor<?x6x7x64xf32>
  %1 = tensor.empty(%dim_0) : tensor<?x1x7x64xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<?x1x7x64xf32>) -> tensor<?x1x7x64xf32>
  %inserted_slice = tensor.insert_slice %2 into %0[0, 0, 0, 0] [%dim_0, 1, 7, 64] [1, 1, 1, 1] : tensor<?x1x7x64xf32> into tensor<?x6x7x64xf32>
  %3 = tensor.empty(%dim_0) : tensor<?x1x7x64xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<?x1x7x64xf32>) -> tensor<?x1x7x64xf32>
  %inserted_slice_1 = tensor.insert_slice %4 into %inserted_slice[0, 5, 0, 0] [%dim_0, 1, 7, 64] [1, 1, 1, 1] : tensor<?x1x7x64xf32> into tensor<?x6x7x64xf32>
  %5 = tensor.empty(%dim_0) : tensor<?x4x1x64xf32>
  %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<?x4x1x64xf32>) -> tensor<?x4x1x64xf32>
  %inserted_slice_2 = tensor.insert_slice %6 into %inserted_slice_1[0, 1, 0, 0] [%dim_0, 4, 1, 64] [1, 1, 1, 1] : tensor<?x4x1x64xf32> into tensor<?x6x7x64xf32>
  %7 = tensor.empty(%dim_0) : tensor<?x4x1x64xf32>
  %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<?x4x1x64xf32>) -> tensor<?x4x1x64xf32>
  %inserted_slice_3 = tensor.insert_slice %8 into %inserted_slice_2[0, 1, 6, 0] [%dim_0, 4, 1, 64] [1, 1, 1, 1] : tensor<?x4x1x64xf32> into tensor<?x6x7x64xf32>
  %inserted_slice_4 = tensor.insert_slice %arg0 into %inserted_slice_3[0, 1, 1, 0] [%dim_0, 4, 5, 64] [1, 1, 1, 1] : tensor<?x4x5x64xf32> into tensor<?x6x7x64xf32>
  %collapsed = tensor.collapse_shape %inserted_slice_4 [[0], [1], [2, 3]] : tensor<?x6x7x64xf32> into tensor<?x6x448xf32>
  %9 = tensor.empty(%dim) : tensor<?x4x5x3x192xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<?x6x448xf32>) outs(%9 : tensor<?x4x5x3x192xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x4x5x3x192xf32>
  %collapsed_5 = tensor.collapse_shape %10 [[0, 1, 2], [3, 4]] : tensor<?x4x5x3x192xf32> into tensor<?x576xf32>
  %collapsed_6 = tensor.collapse_shape %arg1 [[0, 1, 2], [3]] : tensor<3x3x64x64xf32> into tensor<576x64xf32>
  %dim_7 = tensor.dim %collapsed_5, %c0 : tensor<?x576xf32>
  %11 = tensor.empty(%dim_7) : tensor<?x64xf32>
  %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %13 = linalg.matmul ins(%collapsed_5, %collapsed_6 : tensor<?x576xf32>, tensor<576x64xf32>) outs(%12 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %expanded = tensor.expand_shape %13 [[0, 1, 2], [3]] output_shape [%dim, 4, 5, 64] : tensor<?x64xf32> into tensor<?x4x5x64xf32>
  return %expanded : tensor<?x4x5x64xf32>
}

// -----

// 32 input channels: below the default tap depth, the im2col product
// stays; with min-tap-depth=32 it takes taps of 32 channels.
// CHECK-LABEL: func @shallow_channels
// CHECK-NOT: scf.for
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<20x288xf32>, tensor<288x64xf32>)
// DEPTH32-LABEL: func @shallow_channels
// DEPTH32: scf.for
// DEPTH32-COUNT-3: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<{{[45]}}x32xf32>, tensor<32x32xf32>)
// DEPTH32: } {rlx.parallel}

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 * 32 + d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @shallow_channels(%arg0: tensor<1x4x5x32xf32>, %arg1: tensor<3x3x32x64xf32>) -> tensor<1x4x5x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x6x7x32xf32>
  %1 = tensor.empty() : tensor<1x1x7x32xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x1x7x32xf32>) -> tensor<1x1x7x32xf32>
  %inserted_slice = tensor.insert_slice %2 into %0[0, 0, 0, 0] [1, 1, 7, 32] [1, 1, 1, 1] : tensor<1x1x7x32xf32> into tensor<1x6x7x32xf32>
  %3 = tensor.empty() : tensor<1x1x7x32xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x7x32xf32>) -> tensor<1x1x7x32xf32>
  %inserted_slice_0 = tensor.insert_slice %4 into %inserted_slice[0, 5, 0, 0] [1, 1, 7, 32] [1, 1, 1, 1] : tensor<1x1x7x32xf32> into tensor<1x6x7x32xf32>
  %5 = tensor.empty() : tensor<1x4x1x32xf32>
  %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<1x4x1x32xf32>) -> tensor<1x4x1x32xf32>
  %inserted_slice_1 = tensor.insert_slice %6 into %inserted_slice_0[0, 1, 0, 0] [1, 4, 1, 32] [1, 1, 1, 1] : tensor<1x4x1x32xf32> into tensor<1x6x7x32xf32>
  %7 = tensor.empty() : tensor<1x4x1x32xf32>
  %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<1x4x1x32xf32>) -> tensor<1x4x1x32xf32>
  %inserted_slice_2 = tensor.insert_slice %8 into %inserted_slice_1[0, 1, 6, 0] [1, 4, 1, 32] [1, 1, 1, 1] : tensor<1x4x1x32xf32> into tensor<1x6x7x32xf32>
  %inserted_slice_3 = tensor.insert_slice %arg0 into %inserted_slice_2[0, 1, 1, 0] [1, 4, 5, 32] [1, 1, 1, 1] : tensor<1x4x5x32xf32> into tensor<1x6x7x32xf32>
  %collapsed = tensor.collapse_shape %inserted_slice_3 [[0], [1], [2, 3]] : tensor<1x6x7x32xf32> into tensor<1x6x224xf32>
  %9 = tensor.empty() : tensor<1x4x5x3x96xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x6x224xf32>) outs(%9 : tensor<1x4x5x3x96xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x5x3x96xf32>
  %collapsed_4 = tensor.collapse_shape %10 [[0, 1, 2], [3, 4]] : tensor<1x4x5x3x96xf32> into tensor<20x288xf32>
  %collapsed_5 = tensor.collapse_shape %arg1 [[0, 1, 2], [3]] : tensor<3x3x32x64xf32> into tensor<288x64xf32>
  %11 = tensor.empty() : tensor<20x64xf32>
  %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<20x64xf32>) -> tensor<20x64xf32>
  %13 = linalg.matmul ins(%collapsed_4, %collapsed_5 : tensor<20x288xf32>, tensor<288x64xf32>) outs(%12 : tensor<20x64xf32>) -> tensor<20x64xf32>
  %expanded = tensor.expand_shape %13 [[0, 1, 2], [3]] output_shape [1, 4, 5, 64] : tensor<20x64xf32> into tensor<1x4x5x64xf32>
  return %expanded : tensor<1x4x5x64xf32>
}

// -----

// No padding: no tap reads a zero, one product over K = 576 is the same
// work.
// CHECK-LABEL: func @no_padding
// CHECK-NOT: scf.for
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<6x576xf32>, tensor<576x64xf32>)

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 * 64 + d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @no_padding(%arg0: tensor<1x4x5x64xf32>, %arg1: tensor<3x3x64x64xf32>) -> tensor<1x2x3x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %collapsed = tensor.collapse_shape %arg0 [[0], [1], [2, 3]] : tensor<1x4x5x64xf32> into tensor<1x4x320xf32>
  %0 = tensor.empty() : tensor<1x2x3x3x192xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x4x320xf32>) outs(%0 : tensor<1x2x3x3x192xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x3x3x192xf32>
  %collapsed_0 = tensor.collapse_shape %1 [[0, 1, 2], [3, 4]] : tensor<1x2x3x3x192xf32> into tensor<6x576xf32>
  %collapsed_1 = tensor.collapse_shape %arg1 [[0, 1, 2], [3]] : tensor<3x3x64x64xf32> into tensor<576x64xf32>
  %2 = tensor.empty() : tensor<6x64xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<6x64xf32>) -> tensor<6x64xf32>
  %4 = linalg.matmul ins(%collapsed_0, %collapsed_1 : tensor<6x576xf32>, tensor<576x64xf32>) outs(%3 : tensor<6x64xf32>) -> tensor<6x64xf32>
  %expanded = tensor.expand_shape %4 [[0, 1, 2], [3]] output_shape [1, 2, 3, 64] : tensor<6x64xf32> into tensor<1x2x3x64xf32>
  return %expanded : tensor<1x2x3x64xf32>
}

// -----

// A strip of the padded input filled with ones: skipping it would change
// the result.
// CHECK-LABEL: func @padded_with_ones
// CHECK-NOT: scf.for
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<20x576xf32>, tensor<576x64xf32>)

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 * 64 + d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @padded_with_ones(%arg0: tensor<1x4x5x64xf32>, %arg1: tensor<3x3x64x64xf32>) -> tensor<1x4x5x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x6x7x64xf32>
  %1 = tensor.empty() : tensor<1x1x7x64xf32>
  %2 = linalg.fill ins(%one : f32) outs(%1 : tensor<1x1x7x64xf32>) -> tensor<1x1x7x64xf32>
  %inserted_slice = tensor.insert_slice %2 into %0[0, 0, 0, 0] [1, 1, 7, 64] [1, 1, 1, 1] : tensor<1x1x7x64xf32> into tensor<1x6x7x64xf32>
  %3 = tensor.empty() : tensor<1x1x7x64xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x7x64xf32>) -> tensor<1x1x7x64xf32>
  %inserted_slice_0 = tensor.insert_slice %4 into %inserted_slice[0, 5, 0, 0] [1, 1, 7, 64] [1, 1, 1, 1] : tensor<1x1x7x64xf32> into tensor<1x6x7x64xf32>
  %5 = tensor.empty() : tensor<1x4x1x64xf32>
  %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<1x4x1x64xf32>) -> tensor<1x4x1x64xf32>
  %inserted_slice_1 = tensor.insert_slice %6 into %inserted_slice_0[0, 1, 0, 0] [1, 4, 1, 64] [1, 1, 1, 1] : tensor<1x4x1x64xf32> into tensor<1x6x7x64xf32>
  %7 = tensor.empty() : tensor<1x4x1x64xf32>
  %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<1x4x1x64xf32>) -> tensor<1x4x1x64xf32>
  %inserted_slice_2 = tensor.insert_slice %8 into %inserted_slice_1[0, 1, 6, 0] [1, 4, 1, 64] [1, 1, 1, 1] : tensor<1x4x1x64xf32> into tensor<1x6x7x64xf32>
  %inserted_slice_3 = tensor.insert_slice %arg0 into %inserted_slice_2[0, 1, 1, 0] [1, 4, 5, 64] [1, 1, 1, 1] : tensor<1x4x5x64xf32> into tensor<1x6x7x64xf32>
  %collapsed = tensor.collapse_shape %inserted_slice_3 [[0], [1], [2, 3]] : tensor<1x6x7x64xf32> into tensor<1x6x448xf32>
  %9 = tensor.empty() : tensor<1x4x5x3x192xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x6x448xf32>) outs(%9 : tensor<1x4x5x3x192xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x5x3x192xf32>
  %collapsed_4 = tensor.collapse_shape %10 [[0, 1, 2], [3, 4]] : tensor<1x4x5x3x192xf32> into tensor<20x576xf32>
  %collapsed_5 = tensor.collapse_shape %arg1 [[0, 1, 2], [3]] : tensor<3x3x64x64xf32> into tensor<576x64xf32>
  %11 = tensor.empty() : tensor<20x64xf32>
  %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<20x64xf32>) -> tensor<20x64xf32>
  %13 = linalg.matmul ins(%collapsed_4, %collapsed_5 : tensor<20x576xf32>, tensor<576x64xf32>) outs(%12 : tensor<20x64xf32>) -> tensor<20x64xf32>
  %expanded = tensor.expand_shape %13 [[0, 1, 2], [3]] output_shape [1, 4, 5, 64] : tensor<20x64xf32> into tensor<1x4x5x64xf32>
  return %expanded : tensor<1x4x5x64xf32>
}

// -----

// The right column of the padded input never written (no strip covers
// it): not provably zero, so the product stays.
// CHECK-LABEL: func @padding_not_covered
// CHECK-NOT: scf.for
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<20x576xf32>, tensor<576x64xf32>)

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 * 64 + d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @padding_not_covered(%arg0: tensor<1x4x5x64xf32>, %arg1: tensor<3x3x64x64xf32>) -> tensor<1x4x5x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x6x7x64xf32>
  %1 = tensor.empty() : tensor<1x1x7x64xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x1x7x64xf32>) -> tensor<1x1x7x64xf32>
  %inserted_slice = tensor.insert_slice %2 into %0[0, 0, 0, 0] [1, 1, 7, 64] [1, 1, 1, 1] : tensor<1x1x7x64xf32> into tensor<1x6x7x64xf32>
  %3 = tensor.empty() : tensor<1x1x7x64xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x7x64xf32>) -> tensor<1x1x7x64xf32>
  %inserted_slice_0 = tensor.insert_slice %4 into %inserted_slice[0, 5, 0, 0] [1, 1, 7, 64] [1, 1, 1, 1] : tensor<1x1x7x64xf32> into tensor<1x6x7x64xf32>
  %5 = tensor.empty() : tensor<1x4x1x64xf32>
  %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<1x4x1x64xf32>) -> tensor<1x4x1x64xf32>
  %inserted_slice_1 = tensor.insert_slice %6 into %inserted_slice_0[0, 1, 0, 0] [1, 4, 1, 64] [1, 1, 1, 1] : tensor<1x4x1x64xf32> into tensor<1x6x7x64xf32>
  %7 = tensor.empty() : tensor<1x4x1x64xf32>
  %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<1x4x1x64xf32>) -> tensor<1x4x1x64xf32>
  %inserted_slice_3 = tensor.insert_slice %arg0 into %inserted_slice_1[0, 1, 1, 0] [1, 4, 5, 64] [1, 1, 1, 1] : tensor<1x4x5x64xf32> into tensor<1x6x7x64xf32>
  %collapsed = tensor.collapse_shape %inserted_slice_3 [[0], [1], [2, 3]] : tensor<1x6x7x64xf32> into tensor<1x6x448xf32>
  %9 = tensor.empty() : tensor<1x4x5x3x192xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x6x448xf32>) outs(%9 : tensor<1x4x5x3x192xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x5x3x192xf32>
  %collapsed_4 = tensor.collapse_shape %10 [[0, 1, 2], [3, 4]] : tensor<1x4x5x3x192xf32> into tensor<20x576xf32>
  %collapsed_5 = tensor.collapse_shape %arg1 [[0, 1, 2], [3]] : tensor<3x3x64x64xf32> into tensor<576x64xf32>
  %11 = tensor.empty() : tensor<20x64xf32>
  %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<20x64xf32>) -> tensor<20x64xf32>
  %13 = linalg.matmul ins(%collapsed_4, %collapsed_5 : tensor<20x576xf32>, tensor<576x64xf32>) outs(%12 : tensor<20x64xf32>) -> tensor<20x64xf32>
  %expanded = tensor.expand_shape %13 [[0, 1, 2], [3]] output_shape [1, 4, 5, 64] : tensor<20x64xf32> into tensor<1x4x5x64xf32>
  return %expanded : tensor<1x4x5x64xf32>
}
