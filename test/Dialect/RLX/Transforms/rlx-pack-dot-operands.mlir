// RUN: rlx-opt %s -split-input-file -rlx-pack-dot-operands='int8=true bf16=true f32=true' | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-pack-dot-operands | FileCheck %s --check-prefix=OFF
// RUN: rlx-opt %s -split-input-file -rlx-pack-dot-operands='f32=true f32-panel-columns=16' | FileCheck %s --check-prefix=AVX2
// RUN: not rlx-opt %s -split-input-file -rlx-pack-dot-operands='f32=true f32-panel-columns=8' 2>&1 | FileCheck %s --check-prefix=BADCOLS
// BADCOLS: error: rlx-pack-dot-operands: f32-panel-columns must be 16 or 32, got 8

// An int8 matmul's weight: packed once for both matmuls that read it, read
// through one unpack.
// CHECK-LABEL: func @int8_matmuls
// CHECK:         %[[W:.+]] = rlx.param "w" : tensor<37x50xi8>
// CHECK-NEXT:    %[[P:.+]] = rlx.pack_dot_operand %[[W]] : (tensor<37x50xi8>) -> tensor<2x10x128xi8>
// CHECK-NEXT:    %[[U:.+]] = rlx.unpack_dot_operand %[[P]] : (tensor<2x10x128xi8>) -> tensor<37x50xi8>
// CHECK:         rlx.matmul %arg0, %[[U]]
// CHECK:         rlx.matmul %arg1, %[[U]]
// CHECK-NOT:     rlx.pack_dot_operand
// OFF-LABEL: func @int8_matmuls
// OFF-NOT:     rlx.pack_dot_operand
func.func @int8_matmuls(%x: tensor<?x37xi8>, %y: tensor<3x?x37xi8>) -> (tensor<?x50xi32>, tensor<3x?x50xi32>) {
  %w = rlx.param "w" : tensor<37x50xi8>
  %0 = rlx.matmul %x, %w : (tensor<?x37xi8>, tensor<37x50xi8>) -> tensor<?x50xi32>
  %1 = rlx.matmul %y, %w : (tensor<3x?x37xi8>, tensor<37x50xi8>) -> tensor<3x?x50xi32>
  return %0, %1 : tensor<?x50xi32>, tensor<3x?x50xi32>
}

// -----

// A weight computed from params (int8 quantization's codes) is packed
// after its computation; an activation on the right is not.
// CHECK-LABEL: func @computed_weight
// CHECK:         %[[Q:.+]] = rlx.cast %{{.+}} : tensor<8x32xf32> -> tensor<8x32xi8>
// CHECK-NEXT:    %[[P:.+]] = rlx.pack_dot_operand %[[Q]]
// CHECK-NEXT:    %[[U:.+]] = rlx.unpack_dot_operand %[[P]]
// CHECK:         rlx.matmul %arg0, %[[U]]
// CHECK:         rlx.matmul %arg0, %arg1 : (tensor<4x8xi8>, tensor<8x32xi8>)
func.func @computed_weight(%x: tensor<4x8xi8>, %a: tensor<8x32xi8>) -> (tensor<4x32xi32>, tensor<4x32xi32>) {
  %w = rlx.param "w" : tensor<8x32xf32>
  %q = rlx.cast %w : tensor<8x32xf32> -> tensor<8x32xi8>
  %0 = rlx.matmul %x, %q : (tensor<4x8xi8>, tensor<8x32xi8>) -> tensor<4x32xi32>
  %1 = rlx.matmul %x, %a : (tensor<4x8xi8>, tensor<8x32xi8>) -> tensor<4x32xi32>
  return %0, %1 : tensor<4x32xi32>, tensor<4x32xi32>
}

// -----

// An int8 conv with one group reads its filter packed as [KH*KW*C, F]; a
// depthwise one (its lowering is no matmul by the filter) does not.
// CHECK-LABEL: func @int8_convs
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<3x3x4x8xi8>) -> tensor<1x9x128xi8>
// CHECK:         %[[U:.+]] = rlx.unpack_dot_operand %{{.+}} : (tensor<1x9x128xi8>) -> tensor<3x3x4x8xi8>
// CHECK:         rlx.conv2d %arg0, %[[U]]
// CHECK-NOT:     rlx.pack_dot_operand
// CHECK:         rlx.conv2d %arg0, %{{.+}} {groups = 4
func.func @int8_convs(%x: tensor<1x6x6x4xi8>) -> (tensor<1x4x4x8xi32>, tensor<1x4x4x4xi32>) {
  %f = rlx.param "f" : tensor<3x3x4x8xi8>
  %d = rlx.param "d" : tensor<3x3x1x4xi8>
  %0 = rlx.conv2d %x, %f {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x6x6x4xi8>, tensor<3x3x4x8xi8>) -> tensor<1x4x4x8xi32>
  %1 = rlx.conv2d %x, %d {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x6x6x4xi8>, tensor<3x3x1x4xi8>) -> tensor<1x4x4x4xi32>
  return %0, %1 : tensor<1x4x4x8xi32>, tensor<1x4x4x4xi32>
}

// -----

// A bf16 matmul widened to f32 (rlx-accumulate-in-f32): its bf16 weight is
// packed and the matmul gets its own widening of the unpack; the old
// widening keeps its other reader. A widened f32 weight by an f32
// activation is left alone (no bf16 kernel reads it).
// CHECK-LABEL: func @bf16_matmul
// CHECK:         %[[W:.+]] = rlx.param "w" : tensor<77x40xbf16>
// CHECK:         %[[P:.+]] = rlx.pack_dot_operand %[[W]] : (tensor<77x40xbf16>) -> tensor<2x39x64xbf16>
// CHECK:         %[[U:.+]] = rlx.unpack_dot_operand %[[P]]
// CHECK:         %[[WIDE:.+]] = rlx.cast %[[W]] : tensor<77x40xbf16> -> tensor<77x40xf32>
// CHECK:         %[[MINE:.+]] = rlx.cast %[[U]] : tensor<77x40xbf16> -> tensor<77x40xf32>
// CHECK:         rlx.matmul %{{.+}}, %[[MINE]]
// CHECK:         rlx.matmul %arg1, %[[WIDE]]
// CHECK:         rlx.add %[[WIDE]]
func.func @bf16_matmul(%x: tensor<?x77xbf16>, %f: tensor<?x77xf32>) -> (tensor<?x40xf32>, tensor<?x40xf32>, tensor<77x40xf32>) {
  %w = rlx.param "w" : tensor<77x40xbf16>
  %xw = rlx.cast %x : tensor<?x77xbf16> -> tensor<?x77xf32>
  %ww = rlx.cast %w : tensor<77x40xbf16> -> tensor<77x40xf32>
  %0 = rlx.matmul %xw, %ww : (tensor<?x77xf32>, tensor<77x40xf32>) -> tensor<?x40xf32>
  %1 = rlx.matmul %f, %ww : (tensor<?x77xf32>, tensor<77x40xf32>) -> tensor<?x40xf32>
  %2 = rlx.add %ww, %ww : (tensor<77x40xf32>, tensor<77x40xf32>) -> tensor<77x40xf32>
  return %0, %1, %2 : tensor<?x40xf32>, tensor<?x40xf32>, tensor<77x40xf32>
}

// -----

// f32 weights the f32 kernel reads in panels (N a multiple of 32 and more
// than 32) from 256 KiB (256 x 256 exactly), a matmul's and a conv's (the
// row tiles of its fused epilogue read the panels too); below, those whose
// rows would crowd a few L1 sets: [64, 256] (rows 1 KiB apart, four sets,
// 16 rows each), a matmul's and a 1x1 conv's, a 3x3 conv's [576, 64]
// (rows 256 bytes apart, 16 sets), and a 7x7 RGB stem's [147, 64]: 9 or 10
// rows in each of its 16 sets, more than L1's 8 ways.
// CHECK-LABEL: func @f32_panels
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<1024x512xf32>) -> tensor<16x1024x32xf32>
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<256x256xf32>) -> tensor<8x256x32xf32>
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<3x3x256x256xf32>) -> tensor<8x2304x32xf32>
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<1x1x256x512xf32>) -> tensor<16x256x32xf32>
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<64x256xf32>) -> tensor<8x64x32xf32>
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<1x1x64x256xf32>) -> tensor<8x64x32xf32>
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<3x3x64x64xf32>) -> tensor<2x576x32xf32>
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<7x7x3x64xf32>) -> tensor<2x147x32xf32>
// CHECK-NOT:     rlx.pack_dot_operand
// OFF-LABEL: func @f32_panels
// OFF-NOT:     rlx.pack_dot_operand
// In AVX2's 16-column panels (its register tile's width) the same weights
// are packed.
// AVX2-LABEL: func @f32_panels
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<1024x512xf32>) -> tensor<32x1024x16xf32>
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<256x256xf32>) -> tensor<16x256x16xf32>
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<3x3x256x256xf32>) -> tensor<16x2304x16xf32>
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<1x1x256x512xf32>) -> tensor<32x256x16xf32>
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<64x256xf32>) -> tensor<16x64x16xf32>
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<1x1x64x256xf32>) -> tensor<16x64x16xf32>
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<3x3x64x64xf32>) -> tensor<4x576x16xf32>
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<7x7x3x64xf32>) -> tensor<4x147x16xf32>
// AVX2-NOT:     rlx.pack_dot_operand
func.func @f32_panels(%x: tensor<?x1024xf32>, %y: tensor<?x256xf32>, %img: tensor<1x14x14x256xf32>, %small: tensor<?x64xf32>, %simg: tensor<1x14x14x64xf32>, %rgb: tensor<1x14x14x3xf32>) -> (tensor<?x512xf32>, tensor<?x256xf32>, tensor<1x12x12x256xf32>, tensor<1x14x14x512xf32>, tensor<?x256xf32>, tensor<1x14x14x256xf32>, tensor<1x12x12x64xf32>, tensor<1x8x8x64xf32>) {
  %w = rlx.param "w" : tensor<1024x512xf32>
  %v = rlx.param "v" : tensor<256x256xf32>
  %f = rlx.param "f" : tensor<3x3x256x256xf32>
  %p = rlx.param "p" : tensor<1x1x256x512xf32>
  %crowd = rlx.param "crowd" : tensor<64x256xf32>
  %crowdc = rlx.param "crowdc" : tensor<1x1x64x256xf32>
  %crowd3 = rlx.param "crowd3" : tensor<3x3x64x64xf32>
  %0 = rlx.matmul %x, %w : (tensor<?x1024xf32>, tensor<1024x512xf32>) -> tensor<?x512xf32>
  %1 = rlx.matmul %y, %v : (tensor<?x256xf32>, tensor<256x256xf32>) -> tensor<?x256xf32>
  %2 = rlx.conv2d %img, %f {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x14x14x256xf32>, tensor<3x3x256x256xf32>) -> tensor<1x12x12x256xf32>
  %3 = rlx.conv2d %img, %p {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x14x14x256xf32>, tensor<1x1x256x512xf32>) -> tensor<1x14x14x512xf32>
  %4 = rlx.matmul %small, %crowd : (tensor<?x64xf32>, tensor<64x256xf32>) -> tensor<?x256xf32>
  %5 = rlx.conv2d %simg, %crowdc {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x14x14x64xf32>, tensor<1x1x64x256xf32>) -> tensor<1x14x14x256xf32>
  %6 = rlx.conv2d %simg, %crowd3 {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x14x14x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x12x12x64xf32>
  %stem = rlx.param "stem" : tensor<7x7x3x64xf32>
  %7 = rlx.conv2d %rgb, %stem {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x14x14x3xf32>, tensor<7x7x3x64xf32>) -> tensor<1x8x8x64xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?x512xf32>, tensor<?x256xf32>, tensor<1x12x12x256xf32>, tensor<1x14x14x512xf32>, tensor<?x256xf32>, tensor<1x14x14x256xf32>, tensor<1x12x12x64xf32>, tensor<1x8x8x64xf32>
}

// -----

// Smaller f32 weights whose rows spread over L1's sets (a matmul's and a
// conv's just under 256 KiB, rows 896 bytes apart: 32 sets; [128, 64],
// 8 rows in each of 16 sets, as many as a set has ways), f32 weights
// with N not a multiple of 32 or of one panel, and batched weights stay as
// they are.
// CHECK-LABEL: func @left_alone
// In 16-column panels the [16384, 32] weight is two panels, packed; the
// rest stay.
// AVX2-LABEL: func @left_alone
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<16384x32xf32>) -> tensor<2x16384x16xf32>
// AVX2-NOT:     rlx.pack_dot_operand
// CHECK-NOT:     rlx.pack_dot_operand
func.func @left_alone(%x: tensor<4x8xf32>, %y: tensor<2x4x8xi8>, %z: tensor<4x16384xf32>, %s: tensor<4x255xf32>, %img: tensor<1x4x4x255xf32>, %q: tensor<4x128xf32>) -> (tensor<4x16xf32>, tensor<2x4x16xi32>, tensor<4x40xf32>, tensor<4x32xf32>, tensor<4x224xf32>, tensor<1x4x4x224xf32>, tensor<4x64xf32>) {
  %under = rlx.param "under" : tensor<255x224xf32>
  %underc = rlx.param "underc" : tensor<1x1x255x224xf32>
  %5 = rlx.conv2d %img, %underc {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x4x255xf32>, tensor<1x1x255x224xf32>) -> tensor<1x4x4x224xf32>
  %w = rlx.param "w" : tensor<8x16xf32>
  %b = rlx.param "b" : tensor<2x8x16xi8>
  %odd = rlx.param "odd" : tensor<16384x40xf32>
  %one = rlx.param "one" : tensor<16384x32xf32>
  %0 = rlx.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = rlx.matmul %y, %b : (tensor<2x4x8xi8>, tensor<2x8x16xi8>) -> tensor<2x4x16xi32>
  %2 = rlx.matmul %z, %odd : (tensor<4x16384xf32>, tensor<16384x40xf32>) -> tensor<4x40xf32>
  %3 = rlx.matmul %z, %one : (tensor<4x16384xf32>, tensor<16384x32xf32>) -> tensor<4x32xf32>
  %4 = rlx.matmul %s, %under : (tensor<4x255xf32>, tensor<255x224xf32>) -> tensor<4x224xf32>
  %ways = rlx.param "ways" : tensor<128x64xf32>
  %6 = rlx.matmul %q, %ways : (tensor<4x128xf32>, tensor<128x64xf32>) -> tensor<4x64xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4x16xf32>, tensor<2x4x16xi32>, tensor<4x40xf32>, tensor<4x32xf32>, tensor<4x224xf32>, tensor<1x4x4x224xf32>, tensor<4x64xf32>
}

// -----

// A loop body (a scan's step after convert-rlx-to-scf) reading a weight
// computed before the loop: packed once, before the loop. A weight computed
// inside the loop from its carried value is not a weight.
// CHECK-LABEL: func @weight_read_in_loop
// AVX2-LABEL: func @weight_read_in_loop
// CHECK:         %[[W:.+]] = rlx.param "r" : tensor<512x2048xf32>
// CHECK-NEXT:    %[[P:.+]] = rlx.pack_dot_operand %[[W]]
// CHECK-NEXT:    %[[U:.+]] = rlx.unpack_dot_operand %[[P]]
// CHECK:         scf.for
// CHECK:           rlx.matmul %{{.+}}, %[[U]]
// CHECK-NOT:       rlx.pack_dot_operand
// CHECK:           rlx.matmul %{{.+}}, %{{.+}} : (tensor<8x512xf32>, tensor<512x1024xf32>)
func.func @weight_read_in_loop(%h0: tensor<8x512xf32>, %m0: tensor<512x1024xf32>) -> tensor<8x2048xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = rlx.param "r" : tensor<512x2048xf32>
  %init = rlx.matmul %h0, %r : (tensor<8x512xf32>, tensor<512x2048xf32>) -> tensor<8x2048xf32>
  %y:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init, %m = %m0) -> (tensor<8x2048xf32>, tensor<512x1024xf32>) {
    %p = rlx.matmul %h0, %r : (tensor<8x512xf32>, tensor<512x2048xf32>) -> tensor<8x2048xf32>
    %s = rlx.add %acc, %p : (tensor<8x2048xf32>, tensor<8x2048xf32>) -> tensor<8x2048xf32>
    %mm = rlx.matmul %h0, %m : (tensor<8x512xf32>, tensor<512x1024xf32>) -> tensor<8x1024xf32>
    %m2 = rlx.add %m, %m : (tensor<512x1024xf32>, tensor<512x1024xf32>) -> tensor<512x1024xf32>
    scf.yield %s, %m2 : tensor<8x2048xf32>, tensor<512x1024xf32>
  }
  return %y#0 : tensor<8x2048xf32>
}

// -----

// A block-scaled weight of an f32 matmul (MXFP8 codes along K, E8M0
// scales, N a multiple of 32, 2 MiB as f32): its codes and scales are
// packed, each as it is, and the matmul reads its own dequantization of the
// two unpacks; the old one stays for its other reader.
// CHECK-LABEL: func @block_scaled_weight
// CHECK:         %[[W:.+]] = rlx.param "w" : tensor<1024x512xf8E4M3FN>
// CHECK-NEXT:    %[[PW:.+]] = rlx.pack_dot_operand %[[W]] : (tensor<1024x512xf8E4M3FN>) -> tensor<16x1024x32xf8E4M3FN>
// CHECK-NEXT:    %[[UW:.+]] = rlx.unpack_dot_operand %[[PW]]
// CHECK:         %[[S:.+]] = rlx.param "s" : tensor<32x512xf8E8M0FNU>
// CHECK-NEXT:    %[[PS:.+]] = rlx.pack_dot_operand %[[S]] : (tensor<32x512xf8E8M0FNU>) -> tensor<16x32x32xf8E8M0FNU>
// CHECK-NEXT:    %[[US:.+]] = rlx.unpack_dot_operand %[[PS]]
// CHECK:         %[[OLD:.+]] = rlx.block_dequantize %[[W]], %[[S]]
// CHECK:         %[[D:.+]] = rlx.block_dequantize %[[UW]], %[[US]] {axis = 0 : i64, block_size = 32 : i64}
// CHECK-NEXT:    rlx.matmul %arg0, %[[D]]
// CHECK:         rlx.add %{{.+}}, %[[OLD]]
// AVX2-LABEL: func @block_scaled_weight
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<1024x512xf8E4M3FN>) -> tensor<32x1024x16xf8E4M3FN>
// AVX2:         rlx.pack_dot_operand %{{.+}} : (tensor<32x512xf8E8M0FNU>) -> tensor<32x32x16xf8E8M0FNU>
// OFF-LABEL: func @block_scaled_weight
// OFF-NOT:     rlx.pack_dot_operand
func.func @block_scaled_weight(%x: tensor<?x1024xf32>, %y: tensor<1024x512xf32>) -> (tensor<?x512xf32>, tensor<1024x512xf32>) {
  %w = rlx.param "w" : tensor<1024x512xf8E4M3FN>
  %s = rlx.param "s" : tensor<32x512xf8E8M0FNU>
  %d = rlx.block_dequantize %w, %s {axis = 0, block_size = 32} : tensor<1024x512xf8E4M3FN>, tensor<32x512xf8E8M0FNU> -> tensor<1024x512xf32>
  %0 = rlx.matmul %x, %d : (tensor<?x1024xf32>, tensor<1024x512xf32>) -> tensor<?x512xf32>
  %1 = rlx.add %y, %d : (tensor<1024x512xf32>, tensor<1024x512xf32>) -> tensor<1024x512xf32>
  return %0, %1 : tensor<?x512xf32>, tensor<1024x512xf32>
}

// -----

// Below 2 MiB as f32 a block-scaled weight is an f32 weight like any: its
// dequantization (prepared once per binding) packed in f32 from 256 KiB.
// CHECK-LABEL: func @block_scaled_weight_small
// CHECK:         %[[D:.+]] = rlx.block_dequantize
// CHECK-NEXT:    %[[P:.+]] = rlx.pack_dot_operand %[[D]] : (tensor<512x256xf32>) -> tensor<8x512x32xf32>
// CHECK-NOT:     rlx.pack_dot_operand
func.func @block_scaled_weight_small(%x: tensor<?x512xf32>) -> tensor<?x256xf32> {
  %w = rlx.param "w" : tensor<512x256xf8E4M3FN>
  %s = rlx.param "s" : tensor<16x256xf8E8M0FNU>
  %d = rlx.block_dequantize %w, %s {axis = 0, block_size = 32} : tensor<512x256xf8E4M3FN>, tensor<16x256xf8E8M0FNU> -> tensor<512x256xf32>
  %0 = rlx.matmul %x, %d : (tensor<?x512xf32>, tensor<512x256xf32>) -> tensor<?x256xf32>
  return %0 : tensor<?x256xf32>
}

// -----

// Codes and scales not packed: N not a multiple of 32, blocks along N,
// codes that are an input. The f32 dequantization of the weights among
// them is an f32 weight like any (packed in f32). MXINT8's i8 codes are
// packed in the f32 kernel's groups of 1, not the int8 kernel's 4.
// CHECK-LABEL: func @block_scaled_not_packed
// CHECK-NOT:     pack_dot_operand {{.*}}x{{f8E4M3FN|f8E8M0FNU}}>)
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<1024x512xf32>)
// CHECK-NEXT:    rlx.unpack_dot_operand
// CHECK-NEXT:    rlx.matmul
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<1024x512xi8>) -> tensor<16x1024x32xi8>
// CHECK:         rlx.pack_dot_operand %{{.+}} : (tensor<32x512xf8E8M0FNU>) -> tensor<16x32x32xf8E8M0FNU>
// CHECK-NOT:     rlx.pack_dot_operand
func.func @block_scaled_not_packed(%x: tensor<4x1024xf32>, %c: tensor<1024x512xf8E4M3FN>) -> (tensor<4x528xf32>, tensor<4x512xf32>, tensor<4x512xf32>, tensor<4x512xf32>) {
  %w = rlx.param "w" : tensor<1024x528xf8E4M3FN>
  %s = rlx.param "s" : tensor<32x528xf8E8M0FNU>
  %d = rlx.block_dequantize %w, %s {axis = 0, block_size = 32} : tensor<1024x528xf8E4M3FN>, tensor<32x528xf8E8M0FNU> -> tensor<1024x528xf32>
  %0 = rlx.matmul %x, %d : (tensor<4x1024xf32>, tensor<1024x528xf32>) -> tensor<4x528xf32>
  %v = rlx.param "v" : tensor<1024x512xf8E4M3FN>
  %t = rlx.param "t" : tensor<1024x16xf8E8M0FNU>
  %e = rlx.block_dequantize %v, %t {axis = 1, block_size = 32} : tensor<1024x512xf8E4M3FN>, tensor<1024x16xf8E8M0FNU> -> tensor<1024x512xf32>
  %1 = rlx.matmul %x, %e : (tensor<4x1024xf32>, tensor<1024x512xf32>) -> tensor<4x512xf32>
  %i = rlx.param "i" : tensor<1024x512xi8>
  %u = rlx.param "u" : tensor<32x512xf8E8M0FNU>
  %f = rlx.block_dequantize %i, %u {axis = 0, block_size = 32} : tensor<1024x512xi8>, tensor<32x512xf8E8M0FNU> -> tensor<1024x512xf32>
  %2 = rlx.matmul %x, %f : (tensor<4x1024xf32>, tensor<1024x512xf32>) -> tensor<4x512xf32>
  %g = rlx.block_dequantize %c, %u {axis = 0, block_size = 32} : tensor<1024x512xf8E4M3FN>, tensor<32x512xf8E8M0FNU> -> tensor<1024x512xf32>
  %3 = rlx.matmul %x, %g : (tensor<4x1024xf32>, tensor<1024x512xf32>) -> tensor<4x512xf32>
  return %0, %1, %2, %3 : tensor<4x528xf32>, tensor<4x512xf32>, tensor<4x512xf32>, tensor<4x512xf32>
}
