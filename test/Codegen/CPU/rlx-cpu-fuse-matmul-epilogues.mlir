// RUN: rlx-opt %s -split-input-file -rlx-cpu-fuse-matmul-epilogues | FileCheck %s

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
// kernel packs at each call (2 MiB), and a bf16 product.
// CHECK-LABEL: func @left_alone
// CHECK-NOT: scf.for
// CHECK-COUNT-4: linalg.matmul ins(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor
// CHECK-NOT: scf.for
#id = affine_map<(m, n) -> (m, n)>
#t = affine_map<(m, n) -> (n, m)>
func.func @left_alone(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %big: tensor<64x8192xf32>, %abig: tensor<8x64xf32>,
                      %h: tensor<16x16xbf16>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<8x8192xf32>, tensor<16x16xf32>) {
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
  %eb = tensor.empty() : tensor<8x8192xf32>
  %fb = linalg.fill ins(%zero : f32) outs(%eb : tensor<8x8192xf32>) -> tensor<8x8192xf32>
  %pb = linalg.matmul ins(%abig, %big : tensor<8x64xf32>, tensor<64x8192xf32>) outs(%fb : tensor<8x8192xf32>) -> tensor<8x8192xf32>
  %rb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%pb : tensor<8x8192xf32>) outs(%eb : tensor<8x8192xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<8x8192xf32>
  %eh = tensor.empty() : tensor<16x16xf32>
  %fh = linalg.fill ins(%zero : f32) outs(%eh : tensor<16x16xf32>) -> tensor<16x16xf32>
  %ph = linalg.matmul ins(%h, %h : tensor<16x16xbf16>, tensor<16x16xbf16>) outs(%fh : tensor<16x16xf32>) -> tensor<16x16xf32>
  %rh = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ph : tensor<16x16xf32>) outs(%eh : tensor<16x16xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<16x16xf32>
  return %p, %r2, %r, %rb, %rh : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<8x8192xf32>, tensor<16x16xf32>
}
