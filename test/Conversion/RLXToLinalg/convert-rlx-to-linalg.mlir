// RUN: rlx-opt %s -split-input-file -convert-rlx-to-linalg | FileCheck %s

// Broadcasting elementwise: one generic, the stretched operand indexed by a
// projection of the result dims.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @add_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<?x4xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: %[[D:.+]] = tensor.dim %[[A]]
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<?x4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: arith.addf
// CHECK-NOT: rlx.
func.func @add_broadcast(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = rlx.add %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A size-1 dim that stretches is indexed with the constant 0.
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func @sub_stretch
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[COL]], #{{.+}}]
// CHECK: arith.subi
func.func @sub_stretch(%a: tensor<3x4xi32>, %b: tensor<3x1xi32>) -> tensor<3x4xi32> {
  %0 = rlx.sub %a, %b : (tensor<3x4xi32>, tensor<3x1xi32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

// CHECK-LABEL: func @unary_math
// CHECK: math.exp
// CHECK: math.tanh
// CHECK: math.erf
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.atan
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: arith.fptosi
func.func @unary_math(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = rlx.exp %x : tensor<4xf32>
  %1 = rlx.tanh %0 : tensor<4xf32>
  %t = rlx.gelu %1 {approximate = "erf"} : tensor<4xf32>
  %sin = rlx.sin %t : tensor<4xf32>
  %cos = rlx.cos %sin : tensor<4xf32>
  %2 = rlx.atan %cos : tensor<4xf32>
  %m = rlx.compare "gt", %2, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %s = rlx.select %m, %2, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = rlx.cast %s : tensor<4xf32> -> tensor<4xi32>
  return %c : tensor<4xi32>
}

// -----

// [..., M, K] x [K, N] folds the batch dims into M: one linalg.matmul.
// CHECK-LABEL: func @matmul_fold_batch
// CHECK-SAME: (%[[X:.+]]: tensor<?x2x3xf32>, %[[W:.+]]: tensor<3x4xf32>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<?x2x3xf32> into tensor<?x3xf32>
// CHECK: %[[ZERO:.+]] = linalg.fill
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[FLAT]], %[[W]] : tensor<?x3xf32>, tensor<3x4xf32>) outs(%[[ZERO]] : tensor<?x4xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]]
func.func @matmul_fold_batch(%x: tensor<?x2x3xf32>, %w: tensor<3x4xf32>) -> tensor<?x2x4xf32> {
  %0 = rlx.matmul %x, %w : (tensor<?x2x3xf32>, tensor<3x4xf32>) -> tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}

// -----

// Broadcasting batch dims: one generic contraction, batch dim 0 of the lhs
// stretched.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d3)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_batch_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_batch_broadcast(%a: tensor<1x2x3xf64>, %b: tensor<?x3x4xf64>) -> tensor<?x2x4xf64> {
  %0 = rlx.matmul %a, %b : (tensor<1x2x3xf64>, tensor<?x3x4xf64>) -> tensor<?x2x4xf64>
  return %0 : tensor<?x2x4xf64>
}

// -----

// A right operand with a batch of one (TOSA's matmul, and a broadcast
// weight) is a 2-D one: one matmul over every row of the lhs, which the CPU
// pipeline parallelizes, instead of a batch_matmul of batch 1 on one thread.
// CHECK-LABEL: func @matmul_unit_batch
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x5x3xf32>, %[[W:[^:]+]]: tensor<1x3x4xf32>)
// CHECK-DAG: %[[W2:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2]] : tensor<1x3x4xf32> into tensor<3x4xf32>
// CHECK-DAG: %[[X2:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<1x5x3xf32> into tensor<5x3xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[X2]], %[[W2]] : tensor<5x3xf32>, tensor<3x4xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]]
// CHECK-NOT: linalg.batch_matmul
func.func @matmul_unit_batch(%x: tensor<1x5x3xf32>, %w: tensor<1x3x4xf32>) -> tensor<1x5x4xf32> {
  %0 = rlx.matmul %x, %w : (tensor<1x5x3xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
  return %0 : tensor<1x5x4xf32>
}

// -----

// A 1x1 conv (stride 1, no padding) is one matmul over the input's pixels:
// no copy, the dynamic batch carried through the reshapes.
// CHECK-LABEL: func @conv_pointwise
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4x4x8xf32>, %[[W:[^:]+]]: tensor<1x1x8x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: %[[ROWS:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2], [3]] : tensor<?x4x4x8xf32> into tensor<?x8xf32>
// CHECK: %[[FILTER:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<1x1x8x16xf32> into tensor<8x16xf32>
// CHECK: %[[PRODUCT:.+]] = linalg.matmul ins(%[[ROWS]], %[[FILTER]] : tensor<?x8xf32>, tensor<8x16xf32>) outs({{.*}} : tensor<?x16xf32>)
// CHECK: tensor.expand_shape %[[PRODUCT]] {{\[}}[0, 1, 2], [3]] {{.*}} : tensor<?x16xf32> into tensor<?x4x4x16xf32>
func.func @conv_pointwise(%x: tensor<?x4x4x8xf32>, %w: tensor<1x1x8x16xf32>) -> tensor<?x4x4x16xf32> {
  %0 = rlx.conv2d %x, %w : (tensor<?x4x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<?x4x4x16xf32>
  return %0 : tensor<?x4x4x16xf32>
}

// -----

// A 3x3 conv copies its windows into rows (im2col) and multiplies them by
// the filter as [KH*KW*C, F]. Without width dilation a window row's KW*C
// values are consecutive: the padded input is viewed as [N, H, W*C] and
// (kw, c) is one loop, read at ow * stride * C + j.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d3, d2 * 4 + d4)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func @conv_im2col
// CHECK: %[[PAD:.+]] = tensor.insert_slice %arg0 into %{{.+}}[0, 1, 1, 0] [%{{.+}}, 5, 5, 2] [1, 1, 1, 1] : tensor<?x5x5x2xf32> into tensor<?x7x7x2xf32>
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[PAD]] {{\[}}[0], [1], [2, 3]] : tensor<?x7x7x2xf32> into tensor<?x7x14xf32>
// CHECK: %[[PATCH:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[FLAT]] : tensor<?x7x14xf32>) outs({{.*}} : tensor<?x3x3x3x6xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[V]]
// CHECK: %[[ROWS:.+]] = tensor.collapse_shape %[[PATCH]] {{\[}}[0, 1, 2], [3, 4]] : tensor<?x3x3x3x6xf32> into tensor<?x18xf32>
// CHECK: %[[FILTER:.+]] = tensor.collapse_shape {{.*}} : tensor<3x3x2x4xf32> into tensor<18x4xf32>
// CHECK: %[[PRODUCT:.+]] = linalg.matmul ins(%[[ROWS]], %[[FILTER]] : tensor<?x18xf32>, tensor<18x4xf32>)
// CHECK: tensor.expand_shape %[[PRODUCT]] {{.*}} : tensor<?x4xf32> into tensor<?x3x3x4xf32>
func.func @conv_im2col(%x: tensor<?x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<?x3x3x4xf32> {
  %0 = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<?x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<?x3x3x4xf32>
  return %0 : tensor<?x3x3x4xf32>
}

// -----

// A strided 1x1 conv (ResNet's downsample) is a strided copy of the pixels
// it reads, then the matmul; dynamic H and W size the copy at run time.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d3, d2 * 16 + d4)>
// CHECK-LABEL: func @conv_pointwise_strided
// CHECK-NOT: tensor.pad
// CHECK: tensor.collapse_shape {{.*}} : tensor<1x?x?x8xf32> into tensor<1x?x?xf32>
// CHECK: %[[PATCH:.+]] = linalg.generic {indexing_maps = [#[[IN]], {{.*}}]} {{.*}} outs({{.*}} : tensor<1x?x?x1x8xf32>)
// CHECK: tensor.collapse_shape %[[PATCH]] {{.*}} into tensor<?x8xf32>
// CHECK: linalg.matmul
func.func @conv_pointwise_strided(%x: tensor<1x?x?x8xf32>, %w: tensor<1x1x8x16xf32>) -> tensor<1x?x?x16xf32> {
  %0 = rlx.conv2d %x, %w {strides = array<i64: 2, 2>}
      : (tensor<1x?x?x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x?x?x16xf32>
  return %0 : tensor<1x?x?x16xf32>
}

// -----

// With width dilation the window's columns are apart: kw and c stay two
// loops and the copy reads the NHWC input directly.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3 * 2, d2 * 2 + d4 * 2, d5)>
// CHECK-LABEL: func @conv_im2col_dilated
// CHECK: %[[PATCH:.+]] = linalg.generic {indexing_maps = [#[[IN]], {{.*}}]} {{.*}} outs({{.*}} : tensor<1x2x3x3x3x2xf32>)
// CHECK: tensor.collapse_shape %[[PATCH]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<1x2x3x3x3x2xf32> into tensor<6x18xf32>
// CHECK: linalg.matmul
func.func @conv_im2col_dilated(%x: tensor<1x7x7x2xf32>, %w: tensor<3x3x2x3xf32>) -> tensor<1x2x3x3xf32> {
  %0 = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>, dilations = array<i64: 2, 2>}
      : (tensor<1x7x7x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Dynamic input channels must be the filter's: checked at run time, then
// cast to static, and the conv takes the matmul path.
// CHECK-LABEL: func @conv_dynamic_channels
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x4x?xf32>
// CHECK: %[[C:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<1x4x4x?xf32>
// CHECK: %[[OK:.+]] = arith.cmpi eq, %[[C]], %{{.+}} : index
// CHECK: cf.assert %[[OK]], "{{.*}}conv2d expects 8 input channels, as the filter has"
// CHECK: %[[STATIC:.+]] = tensor.cast %[[X]] : tensor<1x4x4x?xf32> to tensor<1x4x4x8xf32>
// CHECK: tensor.collapse_shape %[[STATIC]]
// CHECK: linalg.matmul
func.func @conv_dynamic_channels(%x: tensor<1x4x4x?xf32>, %w: tensor<1x1x8x16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = rlx.conv2d %x, %w : (tensor<1x4x4x?xf32>, tensor<1x1x8x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

// A grouped conv pads, splits channels into groups and contracts in one
// generic (the fallback: no matmul).
// CHECK-LABEL: func @conv_grouped
// CHECK-NOT: linalg.matmul
// CHECK: tensor.insert_slice %arg0 {{.*}} into tensor<1x7x7x4xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<1x7x7x2x2xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<2x2x2x2x2xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x3x3x4xf32>
func.func @conv_grouped(%x: tensor<1x5x5x4xf32>, %w: tensor<2x2x2x4xf32>) -> tensor<1x3x3x4xf32> {
  %0 = rlx.conv2d %x, %w {groups = 2 : i64, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x5x5x4xf32>, tensor<2x2x2x4xf32>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}

// -----

// Max pooling pads with -inf: only the padded border is filled (the row
// above, the column left of each input row), the input copied into the
// rest. The window extent comes from a shape operand; the channels are the
// innermost loop.
// CHECK-DAG: #[[WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
// CHECK-DAG: #[[TAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
// CHECK-LABEL: func @max_pool
// CHECK: %[[N:.+]] = tensor.dim %arg0
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PADDED:.+]] = tensor.empty(%[[N]]) : tensor<?x5x5x2xf32>
// CHECK: %[[TOP:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<?x1x5x2xf32>)
// CHECK: %[[P1:.+]] = tensor.insert_slice %[[TOP]] into %[[PADDED]][0, 0, 0, 0] [%[[N]], 1, 5, 2]
// CHECK: %[[LEFT:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<?x4x1x2xf32>)
// CHECK: %[[P2:.+]] = tensor.insert_slice %[[LEFT]] into %[[P1]][0, 1, 0, 0] [%[[N]], 4, 1, 2]
// CHECK-NOT: linalg.fill {{.*}}tensor<?x5x5x2xf32>
// CHECK: %[[IN:.+]] = tensor.insert_slice %arg0 into %[[P2]][0, 1, 1, 0] [%[[N]], 4, 4, 2]
// CHECK: tensor.empty() : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[WIN]], #[[TAP]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[IN]], {{.*}})
// CHECK: arith.maximumf
func.func @max_pool(%x: tensor<?x4x4x2xf32>) -> tensor<?x2x2x2xf32> {
  %0 = rlx.max_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 0>}
      : (tensor<?x4x4x2xf32>) -> tensor<?x2x2x2xf32>
  return %0 : tensor<?x2x2x2xf32>
}

// -----

// mean divides the sum by the (dynamic) count of reduced elements, and
// keepdims reshapes the result.
// CHECK-LABEL: func @mean_keepdims
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: arith.addf
// CHECK: tensor.dim
// CHECK: arith.sitofp
// CHECK: arith.divf
// CHECK: tensor.expand_shape {{.*}} into tensor<1x3xf32>
func.func @mean_keepdims(%x: tensor<?x3xf32>) -> tensor<1x3xf32> {
  %0 = rlx.mean %x {axes = array<i64: 0>, keepdims = true} : (tensor<?x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// keepdims with two dynamic dims: the kept dims keep their sizes (those of
// the reduced tensor), nothing is derived from a flattened count.
// CHECK-LABEL: func @sum_keepdims_two_dynamic
// CHECK: %[[S:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: %[[D0:.+]] = tensor.dim %[[S]], %{{.+}} : tensor<?x?xf32>
// CHECK: %[[D1:.+]] = tensor.dim %[[S]], %{{.+}} : tensor<?x?xf32>
// CHECK: tensor.expand_shape %[[S]] {{\[}}[0], [1, 2]] output_shape [%[[D0]], %[[D1]], 1] : tensor<?x?xf32> into tensor<?x?x1xf32>
func.func @sum_keepdims_two_dynamic(%x: tensor<?x?x3xf32>) -> tensor<?x?x1xf32> {
  %0 = rlx.sum %x {axes = array<i64: 2>, keepdims = true} : (tensor<?x?x3xf32>) -> tensor<?x?x1xf32>
  return %0 : tensor<?x?x1xf32>
}

// -----

// Every dim dynamic, the middle one reduced and kept.
// CHECK-LABEL: func @max_keepdims_all_dynamic
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-NOT: arith.divui
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2]] output_shape [%{{.+}}, 1, %{{.+}}] : tensor<?x?xf32> into tensor<?x1x?xf32>
func.func @max_keepdims_all_dynamic(%x: tensor<?x?x?xf32>) -> tensor<?x1x?xf32> {
  %0 = rlx.max %x {axes = array<i64: 1>, keepdims = true} : (tensor<?x?x?xf32>) -> tensor<?x1x?xf32>
  return %0 : tensor<?x1x?xf32>
}

// -----

// A reshape with paired dynamic dims goes group by group: [?,?,4] expands
// by groups [0], [1], [2, 3] (the dynamic dims are the operand's); [?,4,?]
// to [?,2,?,2]... pairs 4,? with 2,?,2 and collapses first.
// CHECK-LABEL: func @reshape_paired_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x?x4xf32>, %[[Y:.+]]: tensor<?x4x?xf32>)
// CHECK-DAG: %[[D0:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x?x4xf32>
// CHECK-DAG: %[[D1:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x?x4xf32>
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [%[[D0]], %[[D1]], 2, 2] : tensor<?x?x4xf32> into tensor<?x?x2x2xf32>
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2]] : tensor<?x4x?xf32> into tensor<?x?xf32>
// CHECK-DAG: %[[E0:.+]] = tensor.dim %[[Y]], %{{.+}} : tensor<?x4x?xf32>
// CHECK-DAG: %[[E2:.+]] = tensor.dim %[[Y]], %{{.+}} : tensor<?x4x?xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0], [1, 2, 3]] output_shape [%[[E0]], 2, %[[E2]], 2] : tensor<?x?xf32> into tensor<?x2x?x2xf32>
func.func @reshape_paired_dynamic(%x: tensor<?x?x4xf32>, %y: tensor<?x4x?xf32>)
    -> (tensor<?x?x2x2xf32>, tensor<?x2x?x2xf32>) {
  %r = rlx.reshape %x : (tensor<?x?x4xf32>) -> tensor<?x?x2x2xf32>
  %s = rlx.reshape %y : (tensor<?x4x?xf32>) -> tensor<?x2x?x2xf32>
  return %r, %s : tensor<?x?x2x2xf32>, tensor<?x2x?x2xf32>
}

// -----

// Removing a unit dim between two dynamic ones is a collapse alone.
// CHECK-LABEL: func @reshape_drop_unit_dynamic
// CHECK-NOT: tensor.dim
// CHECK: tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2]] : tensor<?x1x?xf32> into tensor<?x?xf32>
// CHECK-NOT: tensor.expand_shape
func.func @reshape_drop_unit_dynamic(%x: tensor<?x1x?xf32>) -> tensor<?x?xf32> {
  %r = rlx.reshape %x : (tensor<?x1x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// softmax: max, subtract, exp, sum, divide.
// CHECK-LABEL: func @softmax
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
func.func @softmax(%x: tensor<?x10xf32>) -> tensor<?x10xf32> {
  %0 = rlx.softmax %x {axis = 1 : i64} : tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// Shape ops become views and copies on tensors.
// CHECK-LABEL: func @shapes
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape
// CHECK: linalg.transpose
// CHECK: tensor.extract_slice {{.*}} [1, 2]
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
func.func @shapes(%x: tensor<?x2x3xf32>, %y: tensor<?x5xf32>) -> (tensor<?x6xf32>, tensor<3x2x?xf32>, tensor<?x2xf32>, tensor<?x10xf32>) {
  %r = rlx.reshape %x : (tensor<?x2x3xf32>) -> tensor<?x6xf32>
  %t = rlx.transpose %x {permutation = array<i64: 2, 1, 0>} : (tensor<?x2x3xf32>) -> tensor<3x2x?xf32>
  %s = rlx.slice %y {start = array<i64: 0, 1>, limit = array<i64: -1, 5>, strides = array<i64: 1, 2>} : (tensor<?x5xf32>) -> tensor<?x2xf32>
  %c = rlx.concat %y, %y {axis = 1 : i64} : (tensor<?x5xf32>, tensor<?x5xf32>) -> tensor<?x10xf32>
  return %r, %t, %s, %c : tensor<?x6xf32>, tensor<3x2x?xf32>, tensor<?x2xf32>, tensor<?x10xf32>
}

// -----

// gather clamps each index into [0, size - 1] before reading.
// CHECK-LABEL: func @gather
// CHECK: linalg.generic
// CHECK: arith.index_cast
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract
func.func @gather(%t: tensor<5x3xf32>, %i: tensor<?x2xi32>) -> tensor<?x2x3xf32> {
  %0 = rlx.gather %t, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<?x2xi32>) -> tensor<?x2x3xf32>
  return %0 : tensor<?x2x3xf32>
}

// -----

// Negative: rlx.param is left for the artifact ABI pass.
// CHECK-LABEL: func @param_stays
// CHECK: rlx.param "w"
func.func @param_stays() -> tensor<3xf32> {
  %w = rlx.param "w" : tensor<3xf32>
  return %w : tensor<3xf32>
}

// -----

// Random bits: the key's words are two inputs broadcast over the sample;
// the counter is the row-major index over the sample dims; 20 threefry
// rounds (adds, xors, rotates by shifts) in the body.
// CHECK-DAG: #[[KEY:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func @random_bits
// CHECK-SAME: (%[[K:.+]]: tensor<?x2xi32>)
// CHECK-DAG: %[[K0:.+]] = tensor.extract_slice %[[K]][0, 0] [%{{.+}}, 1] [1, 1] : tensor<?x2xi32> to tensor<?xi32>
// CHECK-DAG: %[[K1:.+]] = tensor.extract_slice %[[K]][0, 1] [%{{.+}}, 1] [1, 1] : tensor<?x2xi32> to tensor<?xi32>
// CHECK: linalg.generic {indexing_maps = [#[[KEY]], #[[KEY]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[K0]], %[[K1]] : tensor<?xi32>, tensor<?xi32>)
// CHECK-DAG: linalg.index 1
// CHECK-DAG: linalg.index 2
// CHECK: arith.index_castui
// CHECK: arith.constant 466688986 : i32
// CHECK-COUNT-20: arith.shrui
// CHECK-NOT: arith.shrui
// CHECK: linalg.yield %{{.+}} : i32
// CHECK-NOT: rlx.
func.func @random_bits(%k: tensor<?x2xi32>) -> tensor<?x3x4xi32> {
  %0 = rlx.random_bits %k : tensor<?x2xi32> -> tensor<?x3x4xi32>
  return %0 : tensor<?x3x4xi32>
}

// -----

// Uniform: the top 23 bits under the exponent of 1.0, then one fma.
// CHECK-LABEL: func @random_uniform
// CHECK: linalg.generic
// CHECK: arith.constant 9 : i32
// CHECK: arith.constant 1065353216 : i32
// CHECK: arith.bitcast %{{.+}} : i32 to f32
// CHECK: math.fma
// CHECK: arith.maximumf
func.func @random_uniform(%k: tensor<2xi32>) -> tensor<8xf32> {
  %0 = rlx.random_uniform %k {minval = -2.0, maxval = 3.0} : tensor<2xi32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Normal: erfinv's log1p is a rational function near 0 and a log beyond.
// CHECK-LABEL: func @random_normal
// CHECK: linalg.generic
// CHECK: math.log
// CHECK: arith.divf
// CHECK: math.sqrt
// CHECK: math.fma
func.func @random_normal(%k: tensor<2xi32>) -> tensor<3x5xf64> {
  %0 = rlx.random_normal %k : tensor<2xi32> -> tensor<3x5xf64>
  return %0 : tensor<3x5xf64>
}

// -----

// Truncated normal: the uniform between the bounds' erfs (computed at
// compile time: erf(-2/sqrt2) and erf(2/sqrt2) in f32, XLA's), erfinv,
// +-1 to +-inf, times sqrt(2), then clamped to nextafter(-2, +inf) and
// nextafter(2, -inf). In f32 log1p's log is XLA's (Eigen's plog_float:
// mantissa against sqrt(1/2), fma polynomial, ln2 in two parts), not
// math.log.
// CHECK-LABEL: func @random_truncated_normal
// CHECK: linalg.generic
// CHECK: arith.constant -0.954499{{[0-9]+}} : f32
// CHECK: math.fma
// CHECK: arith.maximumf
// CHECK-NOT: math.log
// CHECK: arith.constant 0.707106769 : f32
// CHECK: arith.constant -2.12194442E-4 : f32
// CHECK: arith.constant 0.693359375 : f32
// CHECK-NOT: math.log
// CHECK: arith.divf
// CHECK: arith.cmpf oeq
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.select
// CHECK: arith.constant -1.99999988 : f32
// CHECK: arith.maximumf
// CHECK: arith.constant 1.99999988 : f32
// CHECK: arith.minimumf
// CHECK: linalg.yield
func.func @random_truncated_normal(%k: tensor<2xi32>) -> tensor<3x5xf32> {
  %0 = rlx.random_truncated_normal %k {lower = -2.0, upper = 2.0} : tensor<2xi32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Split and fold_in: a generic over [..., 2] picking word 0 or 1 of the
// hash by the last index; fold_in's data broadcasts with the key's batch.
// CHECK-DAG: #[[BATCH:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @random_keys
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #[[BATCH]], #{{.+}}]
// CHECK: arith.select
func.func @random_keys(%k: tensor<2xi32>, %d: tensor<4xi32>) -> (tensor<3x2xi32>, tensor<4x2xi32>) {
  %0 = rlx.random_split %k {num = 3 : i64} : (tensor<2xi32>) -> tensor<3x2xi32>
  %1 = rlx.random_fold_in %k, %d : (tensor<2xi32>, tensor<4xi32>) -> tensor<4x2xi32>
  return %0, %1 : tensor<3x2xi32>, tensor<4x2xi32>
}

// -----

// Two batch dims alike (attention's batch and heads) collapse into one: a
// batch_matmul, not a generic contraction; the dynamic batch carried through.
// CHECK-LABEL: func @matmul_two_batch_dims
// CHECK-DAG: %[[Q:.+]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<?x12x8x4xf32> into tensor<?x8x4xf32>
// CHECK-DAG: %[[K:.+]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<?x12x4x8xf32> into tensor<?x4x8xf32>
// CHECK: %[[P:.+]] = linalg.batch_matmul ins(%[[Q]], %[[K]] : tensor<?x8x4xf32>, tensor<?x4x8xf32>)
// CHECK: tensor.expand_shape %[[P]] {{\[}}[0, 1], [2], [3]] output_shape [%{{.*}}, 12, 8, 8] : tensor<?x8x8xf32> into tensor<?x12x8x8xf32>
// CHECK-NOT: linalg.generic
func.func @matmul_two_batch_dims(%q: tensor<?x12x8x4xf32>, %k: tensor<?x12x4x8xf32>) -> tensor<?x12x8x8xf32> {
  %0 = rlx.matmul %q, %k : (tensor<?x12x8x4xf32>, tensor<?x12x4x8xf32>) -> tensor<?x12x8x8xf32>
  return %0 : tensor<?x12x8x8xf32>
}

// -----

// Narrow floats: rounding is integer code around one math.roundeven, the
// code bitcast to the narrow type; decoding scales the integer significand.
// CHECK-LABEL: func @narrow_float_casts
// CHECK:         linalg.generic
// CHECK:           math.roundeven %{{.*}} : f32
// CHECK:           arith.trunci %{{.*}} : i32 to i8
// CHECK:           arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK:         linalg.generic
// CHECK:           arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK:           arith.extui %{{.*}} : i8 to i32
// CHECK:           arith.uitofp
// CHECK:         linalg.generic
// CHECK:           math.roundeven %{{.*}} : f32
// CHECK-NOT:       arith.trunci
// CHECK:           linalg.yield %{{.*}} : f32
func.func @narrow_float_casts(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %q = rlx.cast %x : tensor<?xf32> -> tensor<?xf8E4M3FN>
  %d = rlx.cast %q : tensor<?xf8E4M3FN> -> tensor<?xf32>
  %f = rlx.fake_quant %x {exponent_bits = 2, mantissa_bits = 1, exponent_bias = 1, specials = "finite"} : tensor<?xf32>
  return %d, %f : tensor<?xf32>, tensor<?xf32>
}

// -----

// Stochastic rounding (fake_quant with a key): one generic over x reading
// the key's words per batch row; the counter runs over the sample dims
// (x's dims after the key's batch dims), threefry gives JAX's uniform, and
// the scaled magnitude is floored and raised by one where the uniform is
// below its fraction. bf16 in f32 scales by powers split in two.
// CHECK-LABEL: func @stochastic_rounding
// CHECK:         %[[K0:.*]] = tensor.extract_slice %arg1[0, 0] [%{{.*}}, 1] [1, 1] : tensor<?x2xi32> to tensor<?xi32>
// CHECK:         %[[K1:.*]] = tensor.extract_slice %arg1[0, 1] [%{{.*}}, 1] [1, 1] : tensor<?x2xi32> to tensor<?xi32>
// CHECK:         linalg.generic {indexing_maps = [#[[KEY:.*]], #[[KEY]], #[[ID:.*]], #[[ID]]]
// CHECK-SAME:      ins(%[[K0]], %[[K1]], %arg0 : tensor<?xi32>, tensor<?xi32>, tensor<?x5xf32>)
// CHECK:           linalg.index 1
// CHECK-NOT:       linalg.index 0
// CHECK:           math.floor %{{.*}} : f32
// CHECK:           arith.cmpf olt
// CHECK-NOT:       math.roundeven
// CHECK:           linalg.yield %{{.*}} : f32
// CHECK:         linalg.generic
// CHECK:           linalg.index 1
// CHECK:           linalg.index 0
// CHECK:           arith.divsi
// CHECK:           math.floor %{{.*}} : f32
func.func @stochastic_rounding(%x: tensor<?x5xf32>, %keys: tensor<?x2xi32>, %key: tensor<2xi32>) -> (tensor<?x5xf32>, tensor<?x5xf32>) {
  %s = rlx.fake_quant %x key %keys {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7, specials = "fn"} : tensor<?x5xf32>, tensor<?x2xi32>
  %t = rlx.fake_quant %x key %key {exponent_bits = 8, mantissa_bits = 7, exponent_bias = 127} : tensor<?x5xf32>, tensor<2xi32>
  return %s, %t : tensor<?x5xf32>, tensor<?x5xf32>
}

// -----

// rlx.cast with a key: the stochastic rounding to bf16's format (the
// generic above), then a cast of values bf16 holds exactly.
// CHECK-LABEL: func @stochastic_cast
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %arg0 : tensor<i32>, tensor<i32>, tensor<?x5xf32>)
// CHECK:           math.floor %{{.*}} : f32
// CHECK:           arith.cmpf olt
// CHECK:         linalg.generic {{.*}} ins(%[[R]] : tensor<?x5xf32>) outs(%{{.*}} : tensor<?x5xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @stochastic_cast(%x: tensor<?x5xf32>, %key: tensor<2xi32>) -> tensor<?x5xbf16> {
  %c = rlx.cast %x key %key : tensor<?x5xf32>, tensor<2xi32> -> tensor<?x5xbf16>
  return %c : tensor<?x5xbf16>
}

// -----

// rem: arith.remf for floats; for integers a remsi whose divisor is 1 where
// it would trap (0, or -1 at INT_MIN), x where the divisor was 0.
// CHECK-LABEL: func @rem
// CHECK: arith.remf
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi eq
// CHECK: arith.ori
// CHECK: arith.select
// CHECK: arith.remsi
// CHECK: arith.select
func.func @rem(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = rlx.rem %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = rlx.rem %i, %j : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// An empty slice reads nothing: a start at the end of a dim, or any start
// into an empty dim, has no valid tensor.extract_slice offset.
// CHECK-LABEL: func.func @empty_slices
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[D:.+]] = tensor.dim %{{.+}}, %c0
// CHECK: tensor.empty(%{{.+}}) : tensor<?x0xf32>
// CHECK: tensor.empty() : tensor<0x3xf32>
func.func @empty_slices(%x: tensor<?x10xf32>, %e: tensor<0x3xf32>) -> (tensor<?x0xf32>, tensor<0x3xf32>) {
  %a = rlx.slice %x {start = array<i64: 0, 10>, limit = array<i64: -1, 10>, strides = array<i64: 1, 1>} : (tensor<?x10xf32>) -> tensor<?x0xf32>
  %b = rlx.slice %e {start = array<i64: 0, 0>, limit = array<i64: 0, 3>, strides = array<i64: 1, 1>} : (tensor<0x3xf32>) -> tensor<0x3xf32>
  return %a, %b : tensor<?x0xf32>, tensor<0x3xf32>
}

// -----

// block_dequantize never reads the scales through a floordiv map (tiling
// would slice them wrong). A static blocked dim that is a multiple of
// block_size views x as [blocks, block_size, ...]: the scales' map drops
// the block_size dim. Otherwise each element extracts its scale at its
// index / block_size. Codes are decoded in the body (f4E2M1FN's bits,
// f8E8M0FNU's exponent with codes 0 and 255 apart); dims known only at run
// time are checked there, one scale per block along the axis.
// CHECK-DAG:   #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[BLOCKS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @block_dequantize
// CHECK:         %[[VIEW:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [2, 32, 16] : tensor<64x16xf4E2M1FN> into tensor<2x32x16xf4E2M1FN>
// CHECK:         %[[W:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[BLOCKS]], #[[ID3]]]
// CHECK-SAME:      ins(%[[VIEW]], %arg1 : tensor<2x32x16xf4E2M1FN>, tensor<2x16xf8E8M0FNU>)
// CHECK:           arith.bitcast %{{.*}} : f4E2M1FN to i4
// CHECK:           arith.bitcast %{{.*}} : f8E8M0FNU to i8
// CHECK:           arith.constant 4194304 : i32
// CHECK:           arith.constant 2143289344 : i32
// CHECK:           linalg.yield %{{.*}} : f32
// CHECK:         tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<2x32x16xf32> into tensor<64x16xf32>
// CHECK:         cf.assert %{{.*}}, "{{.*}}rlx.block_dequantize: scales dim 0 differs from x's dim 0"
// CHECK:         arith.ceildivui %{{.*}}, %{{.*}} : index
// CHECK:         cf.assert %{{.*}}, "{{.*}}rlx.block_dequantize: scales dim 1 differs from the number of blocks of x's dim 1"
// CHECK:         linalg.generic {indexing_maps = [#[[ID]], #[[ID]]]
// CHECK-SAME:      ins(%arg2 : tensor<?x6xf32>)
// CHECK:           %[[ROW:.*]] = linalg.index 0 : index
// CHECK:           %[[COL:.*]] = linalg.index 1 : index
// CHECK:           %[[BLOCK:.*]] = arith.divui %[[COL]], %{{.*}} : index
// CHECK:           tensor.extract %arg3[%[[ROW]], %[[BLOCK]]] : tensor<?x?xbf16>
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @block_dequantize(%w: tensor<64x16xf4E2M1FN>, %s: tensor<2x16xf8E8M0FNU>, %x: tensor<?x6xf32>, %xs: tensor<?x?xbf16>) -> (tensor<64x16xf32>, tensor<?x6xbf16>) {
  %0 = rlx.block_dequantize %w, %s {axis = 0, block_size = 32} : tensor<64x16xf4E2M1FN>, tensor<2x16xf8E8M0FNU> -> tensor<64x16xf32>
  %1 = rlx.block_dequantize %x, %xs {axis = 1, block_size = 4} : tensor<?x6xf32>, tensor<?x?xbf16> -> tensor<?x6xbf16>
  return %0, %1 : tensor<64x16xf32>, tensor<?x6xbf16>
}
