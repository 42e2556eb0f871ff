// RUN: rlx-opt %s -split-input-file -convert-rlx-to-linalg | FileCheck %s

// The pack: the weight zero-padded to whole groups and panels, then one
// affine copy into [panel, group, 32 * G] with i8 sign bits flipped.
// CHECK-DAG: #[[READ:.+]] = affine_map<(d0, d1, d2) -> (d1 * 4 + d2 mod 4, d0 * 32 + d2 floordiv 4)>
// CHECK-LABEL: func @pack
// CHECK:         %[[PAD:.+]] = tensor.pad %arg0 low[0, 0] high[3, 14]
// CHECK:         linalg.generic {indexing_maps = [#[[READ]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[PAD]] : tensor<40x64xi8>) outs(%{{.+}} : tensor<2x10x128xi8>)
// CHECK:           arith.xori %{{.+}}, %c-128_i8 : i8
func.func @pack(%w: tensor<37x50xi8>) -> tensor<2x10x128xi8> {
  %0 = rlx.pack_dot_operand %w : (tensor<37x50xi8>) -> tensor<2x10x128xi8>
  return %0 : tensor<2x10x128xi8>
}

// -----

// A matmul whose B is an unpack reads the packed tensor: one generic over
// (m, n, k) marked rlx.packed_rhs, whose body undoes the offset; the
// unpack itself is gone.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[P:.+]] = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2 floordiv 4, (d1 mod 32) * 4 + d2 mod 4)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @packed_matmul
// CHECK:         linalg.generic {indexing_maps = [#[[A]], #[[P]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<?x37xi8>, tensor<2x10x128xi8>) outs(%{{.+}} : tensor<?x50xi32>) attrs =  {rlx.packed_rhs}
// CHECK:           arith.xori
// CHECK:           arith.extsi
// CHECK:           arith.muli
// CHECK:           arith.addi
// CHECK-NOT:     linalg.matmul
func.func @packed_matmul(%x: tensor<?x37xi8>, %p: tensor<2x10x128xi8>) -> tensor<?x50xi32> {
  %w = rlx.unpack_dot_operand %p : (tensor<2x10x128xi8>) -> tensor<37x50xi8>
  %0 = rlx.matmul %x, %w : (tensor<?x37xi8>, tensor<37x50xi8>) -> tensor<?x50xi32>
  return %0 : tensor<?x50xi32>
}

// -----

// An im2col conv multiplies its rows by the packed filter.
// CHECK-LABEL: func @packed_conv
// CHECK:         linalg.generic {{.+}} ins(%{{.+}}, %arg1 : tensor<16x36xi8>, tensor<1x9x128xi8>) outs(%{{.+}} : tensor<16x8xi32>) attrs =  {rlx.packed_rhs}
// CHECK-NOT:     linalg.matmul
func.func @packed_conv(%x: tensor<1x6x6x4xi8>, %p: tensor<1x9x128xi8>) -> tensor<1x4x4x8xi32> {
  %f = rlx.unpack_dot_operand %p : (tensor<1x9x128xi8>) -> tensor<3x3x4x8xi8>
  %0 = rlx.conv2d %x, %f {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x6x6x4xi8>, tensor<3x3x4x8xi8>) -> tensor<1x4x4x8xi32>
  return %0 : tensor<1x4x4x8xi32>
}

// -----

// A bf16 matmul widened to f32 reads the bf16 packed weight and extends it
// as it multiplies.
// CHECK-LABEL: func @packed_bf16
// CHECK:         linalg.generic {{.+}} ins(%arg0, %arg1 : tensor<?x77xbf16>, tensor<2x39x64xbf16>) outs(%{{.+}} : tensor<?x40xf32>) attrs =  {rlx.packed_rhs}
// CHECK:           arith.extf
// CHECK:           arith.extf
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @packed_bf16(%x: tensor<?x77xbf16>, %p: tensor<2x39x64xbf16>) -> tensor<?x40xf32> {
  %w = rlx.unpack_dot_operand %p : (tensor<2x39x64xbf16>) -> tensor<77x40xbf16>
  %xw = rlx.cast %x : tensor<?x77xbf16> -> tensor<?x77xf32>
  %ww = rlx.cast %w : tensor<77x40xbf16> -> tensor<77x40xf32>
  %0 = rlx.matmul %xw, %ww : (tensor<?x77xf32>, tensor<77x40xf32>) -> tensor<?x40xf32>
  return %0 : tensor<?x40xf32>
}

// -----

// f32 panels (G = 1): the product multiplies and adds, nothing to extend.
// CHECK-DAG: #[[F32P:.+]] = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2, d1 mod 32)>
// CHECK-LABEL: func @packed_f32
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[F32P]], #{{.+}}], {{.+}} ins(%arg0, %arg1 : tensor<?x64xf32>, tensor<2x64x32xf32>) outs(%{{.+}} : tensor<?x64xf32>) attrs =  {rlx.packed_rhs}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.addf
func.func @packed_f32(%x: tensor<?x64xf32>, %p: tensor<2x64x32xf32>) -> tensor<?x64xf32> {
  %w = rlx.unpack_dot_operand %p : (tensor<2x64x32xf32>) -> tensor<64x64xf32>
  %0 = rlx.matmul %x, %w : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// An unpack read by anything else is an affine copy back (then reshaped to
// the filter's dims).
// CHECK-DAG: #[[BACK:.+]] = affine_map<(d0, d1) -> (d1 floordiv 32, d0 floordiv 4, (d1 mod 32) * 4 + d0 mod 4)>
// CHECK-LABEL: func @unpack_read
// CHECK:         %[[COPY:.+]] = linalg.generic {indexing_maps = [#[[BACK]], #{{.+}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1x9x128xi8>) outs(%{{.+}} : tensor<36x8xi8>)
// CHECK:           arith.xori
// CHECK:         tensor.expand_shape %[[COPY]] {{.+}} : tensor<36x8xi8> into tensor<3x3x4x8xi8>
// CHECK-NOT:     rlx.unpack_dot_operand
func.func @unpack_read(%p: tensor<1x9x128xi8>) -> tensor<3x3x4x8xi8> {
  %f = rlx.unpack_dot_operand %p : (tensor<1x9x128xi8>) -> tensor<3x3x4x8xi8>
  return %f : tensor<3x3x4x8xi8>
}
