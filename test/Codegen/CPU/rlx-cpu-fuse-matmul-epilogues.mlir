// RUN: rlx-opt %s -split-input-file -rlx-cpu-fuse-matmul-epilogues | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-cpu-fuse-matmul-epilogues="rows-per-tile=12 tile-columns=16" | FileCheck %s --check-prefix=AVX2
// RUN: rlx-opt %s -split-input-file -rlx-cpu-fuse-matmul-epilogues="whole-product-bytes=1048576" | FileCheck %s --check-prefix=WHOLE1M
// RUN: rlx-opt %s -split-input-file -rlx-cpu-fuse-matmul-epilogues="bf16-products=true" | FileCheck %s --check-prefix=BF16

// A 1x1 convolution's product viewed as NHWC, then bias, residual and relu:
// one parallel loop over 8-row tiles (196 rows: 24 whole tiles, then the
// last 4 rows), each tile zero-filled, multiplied and passed through the
// epilogue in place in the epilogue's output; the bias is read as [F], the
// residual as the product's rows.
// CHECK-LABEL: func @conv_bias_residual_relu
// CHECK-DAG: %[[RES:.+]] = tensor.collapse_shape %arg3 {{\[\[}}0, 1, 2], [3]] : tensor<1x14x14x64xf32> into tensor<196x64xf32>
// CHECK-DAG: %[[BIAS:.+]] = tensor.collapse_shape %arg2 {{\[\[}}0, 1, 2, 3]] : tensor<1x1x1x64xf32> into tensor<64xf32>
// CHECK: %[[OUT:.+]] = tensor.empty() : tensor<196x64xf32>
// CHECK: %[[LOOP:.+]] = scf.for %[[ROW:.+]] = %c0 to %c192 step %c8 iter_args(%[[ACC:.+]] = %[[OUT]])
// CHECK: %[[A:.+]] = tensor.extract_slice %arg0[%[[ROW]], 0] [8, 32] [1, 1]
// CHECK: %[[C:.+]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [8, 64] [1, 1]
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[C]] : tensor<8x64xf32>)
// CHECK: %[[P:.+]] = linalg.matmul ins(%[[A]], %arg1 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%[[ZERO]] : tensor<8x64xf32>)
// CHECK: %[[R:.+]] = tensor.extract_slice %[[RES]][%[[ROW]], 0] [8, 64] [1, 1]
// CHECK: %[[E:.+]] = linalg.generic {{.+}} ins(%[[P]], %[[BIAS]], %[[R]] : tensor<8x64xf32>, tensor<64xf32>, tensor<8x64xf32>) outs(%[[P]] : tensor<8x64xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.insert_slice %[[E]] into %[[ACC]][%[[ROW]], 0] [8, 64] [1, 1]
// CHECK: } {rlx.parallel}
// CHECK: tensor.extract_slice %arg0[192, 0] [4, 32] [1, 1]
// CHECK: linalg.matmul ins(%{{.+}}, %arg1 : tensor<4x32xf32>, tensor<32x64xf32>)
// CHECK: %[[LAST:.+]] = tensor.insert_slice %{{.+}} into %[[LOOP]][192, 0] [4, 64] [1, 1]
// CHECK: %[[NHWC:.+]] = tensor.expand_shape %[[LAST]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 14, 14, 64]
// CHECK: return %[[NHWC]]
#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>
#bias = affine_map<(n, h, w, c) -> (n, 0, 0, c)>
func.func @conv_bias_residual_relu(%a: tensor<196x32xf32>, %b: tensor<32x64xf32>, %bias: tensor<1x1x1x64xf32>, %res: tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<196x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<196x64xf32>) -> tensor<196x64xf32>
  %p = linalg.matmul ins(%a, %b : tensor<196x32xf32>, tensor<32x64xf32>) outs(%f : tensor<196x64xf32>) -> tensor<196x64xf32>
  %v = tensor.expand_shape %p [[0, 1, 2], [3]] output_shape [1, 14, 14, 64] : tensor<196x64xf32> into tensor<1x14x14x64xf32>
  %o = tensor.empty() : tensor<1x14x14x64xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #bias, #nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v, %bias, %res : tensor<1x14x14x64xf32>, tensor<1x1x1x64xf32>, tensor<1x14x14x64xf32>) outs(%o : tensor<1x14x14x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %z : f32
    %u = arith.maximumf %t, %zero : f32
    linalg.yield %u : f32
  } -> tensor<1x14x14x64xf32>
  return %r : tensor<1x14x14x64xf32>
}

// -----

// A dense layer with a dynamic batch and a scalar scale: whole tiles up to
// the last multiple of 8, the rest (0 to 7 rows) after; the scalar stays a
// 0-d tensor read at ().
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func @dense_dynamic_scalar
// CHECK: %[[WHOLE:.+]] = affine.apply #{{.+}}()[%{{.+}}]
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[WHOLE]] step %c8
// CHECK: linalg.matmul {{.*}} : tensor<8x16xf32>, tensor<16x48xf32>) outs(%{{.+}} : tensor<8x48xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[SCALAR]], #{{.+}}]
// CHECK: } {rlx.parallel}
// CHECK: linalg.matmul {{.*}} : tensor<?x16xf32>, tensor<16x48xf32>) outs(%{{.+}} : tensor<?x48xf32>)
// CHECK-NOT: linalg.matmul
#id = affine_map<(m, n) -> (m, n)>
#scalar = affine_map<(m, n) -> ()>
func.func @dense_dynamic_scalar(%a: tensor<?x16xf32>, %b: tensor<16x48xf32>, %s: tensor<f32>) -> tensor<?x48xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%m) : tensor<?x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x48xf32>) -> tensor<?x48xf32>
  %p = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x48xf32>) outs(%f : tensor<?x48xf32>) -> tensor<?x48xf32>
  %o = tensor.empty(%m) : tensor<?x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %s : tensor<?x48xf32>, tensor<f32>) outs(%o : tensor<?x48xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %t = arith.mulf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<?x48xf32>
  return %r : tensor<?x48xf32>
}

// -----

// A scalar held in a one-element tensor (ONNX Gemm's single-element bias)
// collapses to 0-d.
// CHECK-LABEL: func @one_element_bias
// CHECK: %[[S:.+]] = tensor.collapse_shape %arg2 [] : tensor<1xf32> into tensor<f32>
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[S]] : tensor<8x48xf32>, tensor<f32>)
#id = affine_map<(m, n) -> (m, n)>
#one = affine_map<(m, n) -> (0)>
func.func @one_element_bias(%a: tensor<16x16xf32>, %b: tensor<16x48xf32>, %s: tensor<1xf32>) -> tensor<16x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x48xf32>) -> tensor<16x48xf32>
  %p = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x48xf32>) outs(%f : tensor<16x48xf32>) -> tensor<16x48xf32>
  %o = tensor.empty() : tensor<16x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %s : tensor<16x48xf32>, tensor<1xf32>) outs(%o : tensor<16x48xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<16x48xf32>
  return %r : tensor<16x48xf32>
}

// -----

// Left alone: a product also returned (not read by the epilogue alone), an
// epilogue reading the product transposed, a product whose B the matmul
// kernel packs at each call (512 KiB), and a bf16 product; a B just
// under that bound takes the row tiles (@under_packing_bound), unless its
// rows lie 8 KiB apart, in one L1 set (@same_set_rows: packed too).
// CHECK-LABEL: func @left_alone
// CHECK-NOT: scf.for
// CHECK-COUNT-4: linalg.matmul ins(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor
// CHECK-NOT: scf.for
// CHECK-LABEL: func @under_packing_bound
// CHECK: scf.for
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x124xf32>, tensor<124x1056xf32>)
// A [4096, 48] B (768 KiB) is packed at each call into AVX2's 16-column
// panels, not into AVX-512's 32-column ones: the product stays whole only
// for the former.
// CHECK-LABEL: func @panels_of_the_tile
// CHECK: scf.for
// AVX2-LABEL: func @panels_of_the_tile
// AVX2-NOT: scf.for
// AVX2: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x4096xf32>, tensor<4096x48xf32>)
// AVX2-NOT: scf.for
// AVX2-LABEL: func @same_set_rows
// CHECK-LABEL: func @same_set_rows
// CHECK-NOT: scf.for
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x62xf32>, tensor<62x2048xf32>)
// CHECK-NOT: scf.for
#id = affine_map<(m, n) -> (m, n)>
#t = affine_map<(m, n) -> (n, m)>
func.func @left_alone(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %big: tensor<64x2048xf32>, %abig: tensor<8x64xf32>,
                      %h: tensor<16x16xbf16>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<8x2048xf32>, tensor<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %p = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %p2 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r2 = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p2 : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  %eb = tensor.empty() : tensor<8x2048xf32>
  %fb = linalg.fill ins(%zero : f32) outs(%eb : tensor<8x2048xf32>) -> tensor<8x2048xf32>
  %pb = linalg.matmul ins(%abig, %big : tensor<8x64xf32>, tensor<64x2048xf32>) outs(%fb : tensor<8x2048xf32>) -> tensor<8x2048xf32>
  %rb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%pb : tensor<8x2048xf32>) outs(%eb : tensor<8x2048xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<8x2048xf32>
  %eh = tensor.empty() : tensor<16x16xf32>
  %fh = linalg.fill ins(%zero : f32) outs(%eh : tensor<16x16xf32>) -> tensor<16x16xf32>
  %ph = linalg.matmul ins(%h, %h : tensor<16x16xbf16>, tensor<16x16xbf16>) outs(%fh : tensor<16x16xf32>) -> tensor<16x16xf32>
  %rh = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ph : tensor<16x16xf32>) outs(%eh : tensor<16x16xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<16x16xf32>
  return %p, %r2, %r, %rb, %rh : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<8x2048xf32>, tensor<16x16xf32>
}

func.func @under_packing_bound(%a: tensor<64x124xf32>, %b: tensor<124x1056xf32>) -> tensor<64x1056xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1056xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x1056xf32>) -> tensor<64x1056xf32>
  %p = linalg.matmul ins(%a, %b : tensor<64x124xf32>, tensor<124x1056xf32>) outs(%f : tensor<64x1056xf32>) -> tensor<64x1056xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x1056xf32>) outs(%e : tensor<64x1056xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x1056xf32>
  return %r : tensor<64x1056xf32>
}
func.func @panels_of_the_tile(%a: tensor<64x4096xf32>, %b: tensor<4096x48xf32>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %p = linalg.matmul ins(%a, %b : tensor<64x4096xf32>, tensor<4096x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x48xf32>) outs(%e : tensor<64x48xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
func.func @same_set_rows(%a: tensor<64x62xf32>, %b: tensor<62x2048xf32>) -> tensor<64x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x2048xf32>) -> tensor<64x2048xf32>
  %p = linalg.matmul ins(%a, %b : tensor<64x62xf32>, tensor<62x2048xf32>) outs(%f : tensor<64x2048xf32>) -> tensor<64x2048xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x2048xf32>) outs(%e : tensor<64x2048xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x2048xf32>
  return %r : tensor<64x2048xf32>
}

// -----

// A 3x3 conv, stride 2, over a dynamic batch, as convert-rlx-to-linalg
// writes it: the windows copied into rows [N*3*3, 36] (im2col), their
// product with the filter, a bias. Each tile rebuilds its own 8 rows from
// the padded input, a strided [3, 12] window (3 window rows of KW*C = 12
// values) per row at (n, oh * 2, ow * 8), so the whole copy goes; the
// product's size, taken of the rows, is N*9 from the copy's N.
// CHECK-DAG: #[[ROWS:.+]] = affine_map<()[s0] -> (s0 * 9)>
// CHECK-LABEL: func @im2col_bias_dynamic
// CHECK-NOT: tensor<?x3x3x3x12xf32>
// CHECK: %[[N:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[M:.+]] = affine.apply #[[ROWS]]()[%[[N]]]
// CHECK: tensor.empty(%[[M]]) : tensor<?x32xf32>
// CHECK: scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[TILE:.+]] = tensor.empty() : tensor<8x3x12xf32>
// CHECK: %[[ROWS8:.+]] = scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[T:.+]] = %[[TILE]])
// CHECK: %[[P:.+]] = arith.addi %[[ROW]], %[[R]]
// CHECK: %[[OW:.+]] = arith.remui %[[P]], %[[OUTW:.+]] :
// CHECK: %[[NOH:.+]] = arith.divui %[[P]], %[[OUTW]]
// CHECK: %[[OH:.+]] = arith.remui %[[NOH]], %[[OUTH:.+]] :
// CHECK: %[[IMG:.+]] = arith.divui %[[NOH]], %[[OUTH]]
// CHECK: %[[H:.+]] = arith.muli %[[OH]], %{{.+}}
// CHECK: %[[W:.+]] = arith.muli %[[OW]], %{{.+}}
// CHECK: %[[WIN:.+]] = tensor.extract_slice %{{.+}}[%[[IMG]], %[[H]], %[[W]]] [1, 3, 12] [1, 1, 1] : tensor<?x8x32xf32> to tensor<3x12xf32>
// CHECK: %[[SLOT:.+]] = tensor.extract_slice %[[T]][%[[R]], 0, 0] [1, 3, 12] [1, 1, 1]
// CHECK: %[[COPY:.+]] = linalg.copy ins(%[[WIN]] : tensor<3x12xf32>) outs(%[[SLOT]] : tensor<3x12xf32>)
// CHECK: tensor.insert_slice %[[COPY]] into %[[T]][%[[R]], 0, 0] [1, 3, 12] [1, 1, 1]
// CHECK: %[[A:.+]] = tensor.collapse_shape %[[ROWS8]] {{\[\[}}0], [1, 2]] : tensor<8x3x12xf32> into tensor<8x36xf32>
// CHECK: linalg.matmul ins(%[[A]], %{{.+}} : tensor<8x36xf32>, tensor<36x32xf32>)
// CHECK: arith.addf
// CHECK: } {rlx.parallel}
// CHECK: tensor.empty(%{{.+}}) : tensor<?x3x12xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<?x36xf32>, tensor<36x32xf32>)
// CHECK-NOT: linalg.matmul
#im2col_in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d3, d2 * 8 + d4)>
#im2col_out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#nhwc4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias4 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @im2col_bias_dynamic(%x: tensor<?x6x6x4xf32>, %w: tensor<3x3x4x32xf32>, %bias: tensor<32xf32>) -> tensor<?x3x3x32xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x6x6x4xf32>
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x6x6x4xf32> to tensor<?x8x8x4xf32>
  %src = tensor.collapse_shape %padded [[0], [1], [2, 3]] : tensor<?x8x8x4xf32> into tensor<?x8x32xf32>
  %pe = tensor.empty(%n) : tensor<?x3x3x3x12xf32>
  %patches = linalg.generic {indexing_maps = [#im2col_in, #im2col_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%src : tensor<?x8x32xf32>) outs(%pe : tensor<?x3x3x3x12xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x3x3x3x12xf32>
  %rows = tensor.collapse_shape %patches [[0, 1, 2], [3, 4]] : tensor<?x3x3x3x12xf32> into tensor<?x36xf32>
  %filter = tensor.collapse_shape %w [[0, 1, 2], [3]] : tensor<3x3x4x32xf32> into tensor<36x32xf32>
  %m = tensor.dim %rows, %c0 : tensor<?x36xf32>
  %e = tensor.empty(%m) : tensor<?x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %p = linalg.matmul ins(%rows, %filter : tensor<?x36xf32>, tensor<36x32xf32>) outs(%f : tensor<?x32xf32>) -> tensor<?x32xf32>
  %v = tensor.expand_shape %p [[0, 1, 2], [3]] output_shape [%n, 3, 3, 32] : tensor<?x32xf32> into tensor<?x3x3x32xf32>
  %o = tensor.empty(%n) : tensor<?x3x3x32xf32>
  %r = linalg.generic {indexing_maps = [#nhwc4, #bias4, #nhwc4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v, %bias : tensor<?x3x3x32xf32>, tensor<32xf32>) outs(%o : tensor<?x3x3x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x3x3x32xf32>
  return %r : tensor<?x3x3x32xf32>
}

// -----

// Without an epilogue the im2col rows are still rebuilt per tile: the loop
// result replaces the product and the NHWC view stays. Window rows two
// apart (dilation 2 along H: kh * 2 in the copy's map) are a slice with
// stride 2; 18 rows are two whole tiles and 2 rows.
// CHECK-LABEL: func @im2col_no_epilogue_dilated
// CHECK-NOT: tensor<2x3x3x3x8xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %c16 step %c8
// CHECK: tensor.extract_slice %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] [1, 3, 8] [1, 2, 1] : tensor<2x7x20xf32> to tensor<3x8xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x24xf32>, tensor<24x64xf32>)
// CHECK: } {rlx.parallel}
// CHECK: tensor.empty() : tensor<2x3x8xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<2x24xf32>, tensor<24x64xf32>)
// CHECK: %[[NHWC:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1, 2], [3]] output_shape [2, 3, 3, 64]
// CHECK: return %[[NHWC]]
#dil_in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3 * 2, d2 * 4 + d4)>
#im2col_out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @im2col_no_epilogue_dilated(%src: tensor<2x7x20xf32>, %filter: tensor<24x64xf32>) -> tensor<2x3x3x64xf32> {
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<2x3x3x3x8xf32>
  %patches = linalg.generic {indexing_maps = [#dil_in, #im2col_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%src : tensor<2x7x20xf32>) outs(%pe : tensor<2x3x3x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x3x3x8xf32>
  %rows = tensor.collapse_shape %patches [[0, 1, 2], [3, 4]] : tensor<2x3x3x3x8xf32> into tensor<18x24xf32>
  %e = tensor.empty() : tensor<18x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<18x64xf32>) -> tensor<18x64xf32>
  %p = linalg.matmul ins(%rows, %filter : tensor<18x24xf32>, tensor<24x64xf32>) outs(%f : tensor<18x64xf32>) -> tensor<18x64xf32>
  %v = tensor.expand_shape %p [[0, 1, 2], [3]] output_shape [2, 3, 3, 64] : tensor<18x64xf32> into tensor<2x3x3x64xf32>
  return %v : tensor<2x3x3x64xf32>
}

// -----

// A 3x3 conv over 64 channels: its [576, 64] filter's rows crowd 16 L1
// sets, which would pack a plain product's B whole; the im2col rows rebuilt
// per tile in L1 win over that (0.97x oneDNN against 0.69x), so the tiles
// stay and no copy of all windows is made.
// CHECK-LABEL: func @im2col_crowded_filter
// CHECK-NOT: tensor<1x8x8x3x192xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %c64 step %c8
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x576xf32>, tensor<576x64xf32>)
// CHECK: } {rlx.parallel}
#win_in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 * 64 + d4)>
#win_out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @im2col_crowded_filter(%src: tensor<1x10x640xf32>, %filter: tensor<576x64xf32>) -> tensor<1x8x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<1x8x8x3x192xf32>
  %patches = linalg.generic {indexing_maps = [#win_in, #win_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%src : tensor<1x10x640xf32>) outs(%pe : tensor<1x8x8x3x192xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x3x192xf32>
  %rows = tensor.collapse_shape %patches [[0, 1, 2], [3, 4]] : tensor<1x8x8x3x192xf32> into tensor<64x576xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %p = linalg.matmul ins(%rows, %filter : tensor<64x576xf32>, tensor<576x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %v = tensor.expand_shape %p [[0, 1, 2], [3]] output_shape [1, 8, 8, 64] : tensor<64x64xf32> into tensor<1x8x8x64xf32>
  return %v : tensor<1x8x8x64xf32>
}

// -----

// Copies the rows cannot be rebuilt from are left alone: a body that is
// more than a copy (a relu fused into it), and a map that is not linear
// in the pixel and window (a mod).
// CHECK-LABEL: func @im2col_left_alone
// CHECK-COUNT-2: linalg.generic {{.+}} outs(%{{.+}} : tensor<2x3x3x3x8xf32>)
// CHECK-NOT: scf.for
#dil_in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3 * 2, d2 * 4 + d4)>
#im2col_out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#mod_in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, (d2 * 4 + d4) mod 20)>
func.func @im2col_left_alone(%src: tensor<2x7x20xf32>, %filter: tensor<24x64xf32>) -> (tensor<18x64xf32>, tensor<18x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<2x3x3x3x8xf32>
  %relu = linalg.generic {indexing_maps = [#dil_in, #im2col_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%src : tensor<2x7x20xf32>) outs(%pe : tensor<2x3x3x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x3x3x3x8xf32>
  %rows = tensor.collapse_shape %relu [[0, 1, 2], [3, 4]] : tensor<2x3x3x3x8xf32> into tensor<18x24xf32>
  %e = tensor.empty() : tensor<18x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<18x64xf32>) -> tensor<18x64xf32>
  %p = linalg.matmul ins(%rows, %filter : tensor<18x24xf32>, tensor<24x64xf32>) outs(%f : tensor<18x64xf32>) -> tensor<18x64xf32>
  %wrapped = linalg.generic {indexing_maps = [#mod_in, #im2col_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%src : tensor<2x7x20xf32>) outs(%pe : tensor<2x3x3x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x3x3x8xf32>
  %rows2 = tensor.collapse_shape %wrapped [[0, 1, 2], [3, 4]] : tensor<2x3x3x3x8xf32> into tensor<18x24xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e : tensor<18x64xf32>) -> tensor<18x64xf32>
  %p2 = linalg.matmul ins(%rows2, %filter : tensor<18x24xf32>, tensor<24x64xf32>) outs(%f2 : tensor<18x64xf32>) -> tensor<18x64xf32>
  return %p, %p2 : tensor<18x64xf32>, tensor<18x64xf32>
}

// -----

// A product of 512 KiB or more with 64 rows or more takes the row tiles
// without an epilogue: each tile zero-filled in L1, not the whole product
// first. A smaller one, or one with fewer static rows, is left alone.
// CHECK-LABEL: func @large_product
// CHECK: %[[LOOP:.+]] = scf.for %{{.+}} = %{{.+}} to %c1024 step %c8
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<8x128xf32>)
// CHECK: linalg.matmul ins(%{{.+}}, %arg1 : tensor<8x64xf32>, tensor<64x128xf32>) outs(%{{.+}} : tensor<8x128xf32>)
// CHECK: } {rlx.parallel}
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1023x128xf32>)
// CHECK: linalg.matmul ins(%arg2, %arg1 : tensor<1023x64xf32>, tensor<64x128xf32>)
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<8x16384xf32>)
// CHECK: linalg.matmul ins(%arg3, %arg4 : tensor<8x16xf32>, tensor<16x16384xf32>)
// CHECK: return %[[LOOP]]
func.func @large_product(%a: tensor<1024x64xf32>, %b: tensor<64x128xf32>, %small: tensor<1023x64xf32>, %few: tensor<8x16xf32>, %wide: tensor<16x16384xf32>) -> (tensor<1024x128xf32>, tensor<1023x128xf32>, tensor<8x16384xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x128xf32>) -> tensor<1024x128xf32>
  %p = linalg.matmul ins(%a, %b : tensor<1024x64xf32>, tensor<64x128xf32>) outs(%f : tensor<1024x128xf32>) -> tensor<1024x128xf32>
  %es = tensor.empty() : tensor<1023x128xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1023x128xf32>) -> tensor<1023x128xf32>
  %ps = linalg.matmul ins(%small, %b : tensor<1023x64xf32>, tensor<64x128xf32>) outs(%fs : tensor<1023x128xf32>) -> tensor<1023x128xf32>
  %ew = tensor.empty() : tensor<8x16384xf32>
  %fw = linalg.fill ins(%zero : f32) outs(%ew : tensor<8x16384xf32>) -> tensor<8x16384xf32>
  %pw = linalg.matmul ins(%few, %wide : tensor<8x16xf32>, tensor<16x16384xf32>) outs(%fw : tensor<8x16384xf32>) -> tensor<8x16384xf32>
  return %p, %ps, %pw : tensor<1024x128xf32>, tensor<1023x128xf32>, tensor<8x16384xf32>
}

// -----

// A product by a prepacked weight (rlx-pack-dot-operands' panels, the
// generic marked rlx.packed_rhs) with a bias and relu: the same row tiles,
// each the packed generic on the tile's rows (20 rows: two whole tiles and
// the last 4). A packed weight of 2 MiB or more keeps its product whole
// (each row tile would stream it from memory again): @prepacked_2mib.
// CHECK-LABEL: func @prepacked_bias_relu
// CHECK: %[[LOOP:.+]] = scf.for %[[ROW:.+]] = %c0 to %c16 step %c8 iter_args(%[[ACC:.+]] = %{{.+}})
// CHECK: %[[A:.+]] = tensor.extract_slice %arg0[%[[ROW]], 0] [8, 256] [1, 1]
// CHECK: %[[C:.+]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [8, 256] [1, 1]
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[C]] : tensor<8x256xf32>)
// CHECK: %[[P:.+]] = linalg.generic {{.+}} ins(%[[A]], %arg1 : tensor<8x256xf32>, tensor<8x256x32xf32>) outs(%[[ZERO]] : tensor<8x256xf32>) attrs =  {rlx.packed_rhs}
// CHECK: linalg.generic {{.+}} ins(%[[P]], %{{.+}} : tensor<8x256xf32>, tensor<256xf32>) outs(%[[P]] : tensor<8x256xf32>)
// CHECK: arith.maximumf
// CHECK: } {rlx.parallel}
// CHECK: linalg.generic {{.+}} ins(%{{.+}}, %arg1 : tensor<4x256xf32>, tensor<8x256x32xf32>) outs(%{{.+}} : tensor<4x256xf32>) attrs =  {rlx.packed_rhs}
// CHECK-LABEL: func @prepacked_2mib
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.+}} ins(%arg0, %arg1 : tensor<20x1024xf32>, tensor<16x1024x32xf32>) outs(%{{.+}} : tensor<20x512xf32>) attrs =  {rlx.packed_rhs}
#pa = affine_map<(m, n, k) -> (m, k)>
#pb = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#pc = affine_map<(m, n, k) -> (m, n)>
#rows = affine_map<(m, n) -> (m, n)>
#column = affine_map<(m, n) -> (n)>
func.func @prepacked_bias_relu(%a: tensor<20x256xf32>, %panels: tensor<8x256x32xf32>, %bias: tensor<256xf32>) -> tensor<20x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<20x256xf32>) -> tensor<20x256xf32>
  %p = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %panels : tensor<20x256xf32>, tensor<8x256x32xf32>) outs(%f : tensor<20x256xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<20x256xf32>
  %o = tensor.empty() : tensor<20x256xf32>
  %r = linalg.generic {indexing_maps = [#rows, #column, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<20x256xf32>, tensor<256xf32>) outs(%o : tensor<20x256xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<20x256xf32>
  return %r : tensor<20x256xf32>
}
func.func @prepacked_2mib(%a: tensor<20x1024xf32>, %panels: tensor<16x1024x32xf32>, %bias: tensor<512xf32>) -> tensor<20x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<20x512xf32>) -> tensor<20x512xf32>
  %p = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %panels : tensor<20x1024xf32>, tensor<16x1024x32xf32>) outs(%f : tensor<20x512xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<20x512xf32>
  %o = tensor.empty() : tensor<20x512xf32>
  %r = linalg.generic {indexing_maps = [#rows, #column, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<20x512xf32>, tensor<512xf32>) outs(%o : tensor<20x512xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<20x512xf32>
  return %r : tensor<20x512xf32>
}

// -----

// A 1 MiB prepacked weight: in row tiles under the default bound (2 MiB),
// its product whole where the bound is 1 MiB (AVX-512 targets).
// CHECK-LABEL: func @prepacked_1mib
// CHECK: scf.for %{{.+}} = %c0 to %c16 step %c8
// CHECK: } {rlx.parallel}
// WHOLE1M-LABEL: func @prepacked_1mib
// WHOLE1M-NOT: scf.for
// WHOLE1M: linalg.generic {{.+}} ins(%arg0, %arg1 : tensor<20x1024xf32>, tensor<8x1024x32xf32>) outs(%{{.+}} : tensor<20x256xf32>) attrs =  {rlx.packed_rhs}
#pa = affine_map<(m, n, k) -> (m, k)>
#pb = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#pc = affine_map<(m, n, k) -> (m, n)>
#rows = affine_map<(m, n) -> (m, n)>
#column = affine_map<(m, n) -> (n)>
func.func @prepacked_1mib(%a: tensor<20x1024xf32>, %panels: tensor<8x1024x32xf32>, %bias: tensor<256xf32>) -> tensor<20x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<20x256xf32>) -> tensor<20x256xf32>
  %p = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %panels : tensor<20x1024xf32>, tensor<8x1024x32xf32>) outs(%f : tensor<20x256xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<20x256xf32>
  %o = tensor.empty() : tensor<20x256xf32>
  %r = linalg.generic {indexing_maps = [#rows, #column, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<20x256xf32>, tensor<256xf32>) outs(%o : tensor<20x256xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<20x256xf32>
  return %r : tensor<20x256xf32>
}

// -----

// Large products by prepacked weights beyond L1 (128 KiB, four panels)
// take tiles of up to four register tiles of rows, the tallest dividing
// the rows: 3136 rows (a 1x1 conv at 56x56) step 32, 784 (28x28) step 16,
// and 1000 rows, which 16, 24 and 32 do not divide, 8. Two panels (a
// 64 KiB weight of 64 columns), a 32 KiB weight (in L1 beside the tile)
// and 504 rows (too few) keep 8.
// CHECK-LABEL: func @blocked_tiles
// CHECK: scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %c3136{{(_[0-9]+)?}} step %c32{{(_[0-9]+)?}} iter_args
// CHECK: tensor<32x256xf32>, tensor<4x256x32xf32>
// CHECK: scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %c784{{(_[0-9]+)?}} step %c16{{(_[0-9]+)?}} iter_args
// CHECK: tensor<16x256xf32>, tensor<4x256x32xf32>
// CHECK: scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %c1000{{(_[0-9]+)?}} step %c8{{(_[0-9]+)?}} iter_args
// CHECK: tensor<8x256xf32>, tensor<4x256x32xf32>
// CHECK: scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %c3136{{(_[0-9]+)?}} step %c8{{(_[0-9]+)?}} iter_args
// CHECK: tensor<8x256xf32>, tensor<2x256x32xf32>
// CHECK: scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %c3136{{(_[0-9]+)?}} step %c8{{(_[0-9]+)?}} iter_args
// CHECK: tensor<8x64xf32>, tensor<4x64x32xf32>
// CHECK: scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %c504{{(_[0-9]+)?}} step %c8{{(_[0-9]+)?}} iter_args
// CHECK: tensor<8x256xf32>, tensor<4x256x32xf32>
#pa = affine_map<(m, n, k) -> (m, k)>
#pb = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#pc = affine_map<(m, n, k) -> (m, n)>
#rows = affine_map<(m, n) -> (m, n)>
func.func @blocked_tiles(%a: tensor<3136x256xf32>, %a784: tensor<784x256xf32>, %a1000: tensor<1000x256xf32>, %two: tensor<3136x256xf32>, %small: tensor<3136x64xf32>, %a504: tensor<504x256xf32>, %w2_256_32: tensor<2x256x32xf32>, %w4_256_32: tensor<4x256x32xf32>, %w4_64_32: tensor<4x64x32xf32>) -> (tensor<3136x128xf32>, tensor<784x128xf32>, tensor<1000x128xf32>, tensor<3136x64xf32>, tensor<3136x128xf32>, tensor<504x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<3136x128xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<3136x128xf32>) -> tensor<3136x128xf32>
  %p0 = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w4_256_32 : tensor<3136x256xf32>, tensor<4x256x32xf32>) outs(%f0 : tensor<3136x128xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3136x128xf32>
  %e1 = tensor.empty() : tensor<784x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<784x128xf32>) -> tensor<784x128xf32>
  %p1 = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a784, %w4_256_32 : tensor<784x256xf32>, tensor<4x256x32xf32>) outs(%f1 : tensor<784x128xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<784x128xf32>
  %o1 = tensor.empty() : tensor<784x128xf32>
  %r1 = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%p1 : tensor<784x128xf32>) outs(%o1 : tensor<784x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<784x128xf32>
  %e2 = tensor.empty() : tensor<1000x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1000x128xf32>) -> tensor<1000x128xf32>
  %p2 = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a1000, %w4_256_32 : tensor<1000x256xf32>, tensor<4x256x32xf32>) outs(%f2 : tensor<1000x128xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1000x128xf32>
  %o2 = tensor.empty() : tensor<1000x128xf32>
  %r2 = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%p2 : tensor<1000x128xf32>) outs(%o2 : tensor<1000x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<1000x128xf32>
  %e3 = tensor.empty() : tensor<3136x64xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3136x64xf32>) -> tensor<3136x64xf32>
  %p3 = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%two, %w2_256_32 : tensor<3136x256xf32>, tensor<2x256x32xf32>) outs(%f3 : tensor<3136x64xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3136x64xf32>
  %e4 = tensor.empty() : tensor<3136x128xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<3136x128xf32>) -> tensor<3136x128xf32>
  %p4 = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%small, %w4_64_32 : tensor<3136x64xf32>, tensor<4x64x32xf32>) outs(%f4 : tensor<3136x128xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3136x128xf32>
  %e5 = tensor.empty() : tensor<504x128xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<504x128xf32>) -> tensor<504x128xf32>
  %p5 = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a504, %w4_256_32 : tensor<504x256xf32>, tensor<4x256x32xf32>) outs(%f5 : tensor<504x128xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<504x128xf32>
  %o5 = tensor.empty() : tensor<504x128xf32>
  %r5 = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%p5 : tensor<504x128xf32>) outs(%o5 : tensor<504x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<504x128xf32>
  return %p0, %r1, %r2, %p3, %p4, %r5 : tensor<3136x128xf32>, tensor<784x128xf32>, tensor<1000x128xf32>, tensor<3136x64xf32>, tensor<3136x128xf32>, tensor<504x128xf32>
}

// -----

// A prepacked weight from whole-product-bytes (1 MiB here) whose product
// takes the taller row tiles (1568 rows: ResNet-50's 1x1_1024-256@14 at
// batch 8) keeps them and its epilogue, up to 4 MiB; a 20-row product by
// one keeps the whole product (@prepacked_2mib above).
// WHOLE1M-LABEL: func @blocked_beyond_whole_product_bytes
// WHOLE1M: scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %c1568{{(_[0-9]+)?}} step %c32{{(_[0-9]+)?}} iter_args
// WHOLE1M: tensor<32x1024xf32>, tensor<8x1024x32xf32>
// WHOLE1M: arith.maximumf
#qa = affine_map<(m, n, k) -> (m, k)>
#qb = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#qc = affine_map<(m, n, k) -> (m, n)>
#qrows = affine_map<(m, n) -> (m, n)>
func.func @blocked_beyond_whole_product_bytes(%a: tensor<1568x1024xf32>, %w: tensor<8x1024x32xf32>) -> tensor<1568x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1568x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1568x256xf32>) -> tensor<1568x256xf32>
  %p = linalg.generic {indexing_maps = [#qa, #qb, #qc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<1568x1024xf32>, tensor<8x1024x32xf32>) outs(%f : tensor<1568x256xf32>) attrs = {rlx.packed_rhs} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1568x256xf32>
  %o = tensor.empty() : tensor<1568x256xf32>
  %r = linalg.generic {indexing_maps = [#qrows, #qrows], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<1568x256xf32>) outs(%o : tensor<1568x256xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<1568x256xf32>
  return %r : tensor<1568x256xf32>
}

// -----

// With bf16-products (a CPU with AVX512-BF16): a bf16 x bf16 -> f32
// product with an epilogue takes row tiles of 32 rows, each multiplied and
// passed through the epilogue; one by a B of 2 MiB as bf16 stays whole.
// Without the option both stay whole (@left_alone's bf16 product above).
// BF16-LABEL: func @bf16_products
// BF16: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c32
// BF16: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x64xbf16>, tensor<64x96xbf16>) outs(%{{.+}} : tensor<32x96xf32>)
// BF16: linalg.generic
// BF16: } {rlx.parallel}
// BF16-NOT: scf.for
// BF16: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x1024xbf16>, tensor<1024x1024xbf16>)
// CHECK-LABEL: func @bf16_products
// CHECK-NOT: scf.for
#id2 = affine_map<(m, n) -> (m, n)>
func.func @bf16_products(%a: tensor<128x64xbf16>, %b: tensor<64x96xbf16>, %c: tensor<64x1024xbf16>, %w: tensor<1024x1024xbf16>)
    -> (tensor<128x96xf32>, tensor<64x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %p = linalg.matmul ins(%a, %b : tensor<128x64xbf16>, tensor<64x96xbf16>) outs(%f : tensor<128x96xf32>) -> tensor<128x96xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<128x96xf32>) outs(%e : tensor<128x96xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<128x96xf32>
  %e2 = tensor.empty() : tensor<64x1024xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %p2 = linalg.matmul ins(%c, %w : tensor<64x1024xbf16>, tensor<1024x1024xbf16>) outs(%f2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %r2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p2 : tensor<64x1024xf32>) outs(%e2 : tensor<64x1024xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x1024xf32>
  return %r, %r2 : tensor<128x96xf32>, tensor<64x1024xf32>
}
