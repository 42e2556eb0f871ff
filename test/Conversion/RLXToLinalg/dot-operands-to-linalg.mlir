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

// -----

// A block-scaled weight whose codes and scales are both packed: one
// generic over (m, n, k) reading the code at (n / 32, k, n % 32) and its
// scale at (n / 32, k / block_size, n % 32), marked with the block size;
// its body decodes the code and scale (f8E8M0FNU: 2^(code - 127)) and only
// then multiplies by A. A pack of whole panels has no pad (f8E8M0FNU has no
// zero).
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[Q:.+]] = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2, d1 mod 32)>
// CHECK-DAG: #[[S:.+]] = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2 floordiv 48, d1 mod 32)>
// CHECK-LABEL: func @packed_block_scaled
// CHECK-NOT:     tensor.pad
// CHECK:         %[[SCALES:.+]] = linalg.generic {{.+}} ins(%arg2 : tensor<2x64xf8E8M0FNU>) outs(%{{.+}} : tensor<2x2x32xf8E8M0FNU>)
// CHECK:         linalg.generic {indexing_maps = [#[[A]], #[[Q]], #[[S]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1, %[[SCALES]] : tensor<?x96xf32>, tensor<2x96x32xf8E4M3FN>, tensor<2x2x32xf8E8M0FNU>) outs(%{{.+}} : tensor<?x64xf32>) attrs =  {rlx.packed_rhs, rlx.scale_block_size = 48 : i64}
// CHECK:         ^bb0(%[[X:.+]]: f32, %[[CODE:.+]]: f8E4M3FN, %[[SCALE:.+]]: f8E8M0FNU, %[[ACC:.+]]: f32):
// CHECK:           arith.bitcast %[[SCALE]]
// CHECK:           %[[W:.+]] = arith.mulf
// CHECK:           %[[P:.+]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK:           arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NOT:     linalg.matmul
func.func @packed_block_scaled(%x: tensor<?x96xf32>, %codes: tensor<2x96x32xf8E4M3FN>, %s: tensor<2x64xf8E8M0FNU>) -> tensor<?x64xf32> {
  %ps = rlx.pack_dot_operand %s : (tensor<2x64xf8E8M0FNU>) -> tensor<2x2x32xf8E8M0FNU>
  %w = rlx.unpack_dot_operand %codes : (tensor<2x96x32xf8E4M3FN>) -> tensor<96x64xf8E4M3FN>
  %us = rlx.unpack_dot_operand %ps : (tensor<2x2x32xf8E8M0FNU>) -> tensor<2x64xf8E8M0FNU>
  %d = rlx.block_dequantize %w, %us {axis = 0, block_size = 48} : tensor<96x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU> -> tensor<96x64xf32>
  %0 = rlx.matmul %x, %d : (tensor<?x96xf32>, tensor<96x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// The same dequantization read by anything else is lowered as any: its
// codes and scales unpacked, then dequantized.
// CHECK-LABEL: func @packed_block_scaled_other_reader
// CHECK:         linalg.generic {{.+}} ins(%arg0 : tensor<2x96x32xf8E4M3FN>) outs(%{{.+}} : tensor<96x64xf8E4M3FN>)
// CHECK:         linalg.generic {{.+}} ins(%arg1 : tensor<2x2x32xf32>) outs(%{{.+}} : tensor<2x64xf32>)
// CHECK:         tensor.expand_shape
// CHECK:         linalg.generic
// CHECK:           arith.bitcast %{{.+}} : f8E4M3FN to i8
// CHECK-NOT:     rlx.
func.func @packed_block_scaled_other_reader(%codes: tensor<2x96x32xf8E4M3FN>, %ps: tensor<2x2x32xf32>) -> tensor<96x64xf32> {
  %w = rlx.unpack_dot_operand %codes : (tensor<2x96x32xf8E4M3FN>) -> tensor<96x64xf8E4M3FN>
  %us = rlx.unpack_dot_operand %ps : (tensor<2x2x32xf32>) -> tensor<2x64xf32>
  %d = rlx.block_dequantize %w, %us {axis = 0, block_size = 48} : tensor<96x64xf8E4M3FN>, tensor<2x64xf32> -> tensor<96x64xf32>
  return %d : tensor<96x64xf32>
}

// -----

// Codes narrower than a byte (int4) are packed one per byte (zero-extended,
// no offset) and the product's body truncates them back before decoding.
// CHECK-LABEL: func @packed_block_scaled_int4
// CHECK:         linalg.generic {{.+}} ins(%{{.+}} : tensor<64x64xi4>) outs(%{{.+}} : tensor<2x64x32xi8>)
// CHECK:           arith.extui %{{.+}} : i4 to i8
// CHECK-NOT:       arith.xori
// CHECK:         linalg.generic {{.+}} ins(%arg0, %{{.+}}, %arg2 : tensor<?x64xf32>, tensor<2x64x32xi8>, tensor<2x2x32xf32>) {{.+}} attrs =  {rlx.packed_rhs, rlx.scale_block_size = 32 : i64}
// CHECK:           %[[CODE:.+]] = arith.trunci %{{.+}} : i8 to i4
// CHECK:           arith.sitofp %[[CODE]] : i4 to f32
func.func @packed_block_scaled_int4(%x: tensor<?x64xf32>, %codes: tensor<64x64xi4>, %ps: tensor<2x2x32xf32>) -> tensor<?x64xf32> {
  %pc = rlx.pack_dot_operand %codes : (tensor<64x64xi4>) -> tensor<2x64x32xi8>
  %w = rlx.unpack_dot_operand %pc : (tensor<2x64x32xi8>) -> tensor<64x64xi4>
  %us = rlx.unpack_dot_operand %ps : (tensor<2x2x32xf32>) -> tensor<2x64xf32>
  %d = rlx.block_dequantize %w, %us {axis = 0, block_size = 32} : tensor<64x64xi4>, tensor<2x64xf32> -> tensor<64x64xf32>
  %0 = rlx.matmul %x, %d : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// i8 codes (MXINT8) in the f32 panels (groups of 1) are stored as they are:
// no offset by 128 when packed, unpacked or decoded, unlike the int8
// kernel's groups of 4. A plain i8 x i8 matmul by them reads the unpacked
// weight (groups of 1 are no dot-product kernel's layout).
// CHECK-LABEL: func @packed_block_scaled_mxint8
// CHECK:         linalg.generic {{.+}} ins(%{{.+}} : tensor<64x64xi8>) outs(%{{.+}} : tensor<2x64x32xi8>)
// CHECK-NOT:       arith.xori
// CHECK:         linalg.generic {{.+}} ins(%arg0, %{{.+}}, %arg2 : tensor<?x64xf32>, tensor<2x64x32xi8>, tensor<2x2x32xf32>) {{.+}} attrs =  {rlx.packed_rhs, rlx.scale_block_size = 32 : i64}
// CHECK-NOT:       arith.xori
// CHECK:           arith.sitofp %{{.+}} : i8 to f32
// CHECK:         linalg.yield
// CHECK-NOT:     rlx.packed_rhs
// CHECK:         linalg.matmul
func.func @packed_block_scaled_mxint8(%x: tensor<?x64xf32>, %codes: tensor<64x64xi8>, %ps: tensor<2x2x32xf32>, %a: tensor<4x64xi8>) -> (tensor<?x64xf32>, tensor<4x64xi32>) {
  %pc = rlx.pack_dot_operand %codes : (tensor<64x64xi8>) -> tensor<2x64x32xi8>
  %w = rlx.unpack_dot_operand %pc : (tensor<2x64x32xi8>) -> tensor<64x64xi8>
  %us = rlx.unpack_dot_operand %ps : (tensor<2x2x32xf32>) -> tensor<2x64xf32>
  %d = rlx.block_dequantize %w, %us {axis = 0, block_size = 32} : tensor<64x64xi8>, tensor<2x64xf32> -> tensor<64x64xf32>
  %0 = rlx.matmul %x, %d : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  %1 = rlx.matmul %a, %w : (tensor<4x64xi8>, tensor<64x64xi8>) -> tensor<4x64xi32>
  return %0, %1 : tensor<?x64xf32>, tensor<4x64xi32>
}

// -----

// Scales packed in another layout than the f32 panels (bf16: pairs of k)
// are not read by the packed product's maps: the weight is unpacked and
// dequantized, then multiplied as any.
// CHECK-LABEL: func @packed_block_scaled_bf16_scales
// CHECK-NOT:     rlx.scale_block_size
// CHECK:         linalg.matmul
func.func @packed_block_scaled_bf16_scales(%x: tensor<?x64xf32>, %codes: tensor<2x64x32xf8E4M3FN>, %ps: tensor<2x1x64xbf16>) -> tensor<?x64xf32> {
  %w = rlx.unpack_dot_operand %codes : (tensor<2x64x32xf8E4M3FN>) -> tensor<64x64xf8E4M3FN>
  %us = rlx.unpack_dot_operand %ps : (tensor<2x1x64xbf16>) -> tensor<2x64xbf16>
  %d = rlx.block_dequantize %w, %us {axis = 0, block_size = 32} : tensor<64x64xf8E4M3FN>, tensor<2x64xbf16> -> tensor<64x64xf32>
  %0 = rlx.matmul %x, %d : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}
