// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s

// The packed type: ceil(N / 32) panels, ceil(K / G) groups (G = 4 for i8,
// 2 for bf16, 1 for f32), 32 * G values per group; in groups of 1 (f32,
// i8 codes) also ceil(N / 16) panels of 16.
// CHECK-LABEL: func @pack_unpack
func.func @pack_unpack(%w: tensor<37x50xi8>, %f: tensor<3x3x5x7xi8>,
                       %h: tensor<77x64xbf16>, %p32: tensor<2x100x32xf32>,
                       %f50: tensor<100x50xf32>) {
  // CHECK: rlx.pack_dot_operand %{{.*}} : (tensor<37x50xi8>) -> tensor<2x10x128xi8>
  %0 = rlx.pack_dot_operand %w : (tensor<37x50xi8>) -> tensor<2x10x128xi8>
  // CHECK: rlx.unpack_dot_operand %{{.*}} : (tensor<2x10x128xi8>) -> tensor<37x50xi8>
  %1 = rlx.unpack_dot_operand %0 : (tensor<2x10x128xi8>) -> tensor<37x50xi8>
  // A conv filter is read as [KH * KW * C, F] = [45, 7].
  // CHECK: rlx.pack_dot_operand %{{.*}} : (tensor<3x3x5x7xi8>) -> tensor<1x12x128xi8>
  %2 = rlx.pack_dot_operand %f : (tensor<3x3x5x7xi8>) -> tensor<1x12x128xi8>
  // CHECK: rlx.unpack_dot_operand %{{.*}} : (tensor<1x12x128xi8>) -> tensor<3x3x5x7xi8>
  %3 = rlx.unpack_dot_operand %2 : (tensor<1x12x128xi8>) -> tensor<3x3x5x7xi8>
  // CHECK: rlx.pack_dot_operand %{{.*}} : (tensor<77x64xbf16>) -> tensor<2x39x64xbf16>
  %4 = rlx.pack_dot_operand %h : (tensor<77x64xbf16>) -> tensor<2x39x64xbf16>
  // f32: G = 1, column panels of 32.
  // CHECK: rlx.unpack_dot_operand %{{.*}} : (tensor<2x100x32xf32>) -> tensor<100x64xf32>
  %5 = rlx.unpack_dot_operand %p32 : (tensor<2x100x32xf32>) -> tensor<100x64xf32>
  // Or of 16, AVX2's register tile: ceil(50 / 16) panels.
  // CHECK: rlx.pack_dot_operand %{{.*}} : (tensor<100x50xf32>) -> tensor<4x100x16xf32>
  %6 = rlx.pack_dot_operand %f50 : (tensor<100x50xf32>) -> tensor<4x100x16xf32>
  // CHECK: rlx.pack_dot_operand %{{.*}} : (tensor<37x50xi8>) -> tensor<4x37x16xi8>
  %7 = rlx.pack_dot_operand %w : (tensor<37x50xi8>) -> tensor<4x37x16xi8>
  return
}

// A block-scaled weight's codes and scales take the f32 panels (G = 1).
// CHECK-LABEL: func @pack_block_scaled
func.func @pack_block_scaled(%codes: tensor<96x64xf8E4M3FN>, %fp4: tensor<96x64xf4E2M1FN>,
                             %scales: tensor<3x64xf8E8M0FNU>, %h: tensor<3x64xf16>,
                             %int8: tensor<96x64xi8>) {
  // CHECK: rlx.pack_dot_operand %{{.*}} : (tensor<96x64xf8E4M3FN>) -> tensor<2x96x32xf8E4M3FN>
  %0 = rlx.pack_dot_operand %codes : (tensor<96x64xf8E4M3FN>) -> tensor<2x96x32xf8E4M3FN>
  // A code narrower than a byte is stored one per byte, as i8.
  // CHECK: rlx.pack_dot_operand %{{.*}} : (tensor<96x64xf4E2M1FN>) -> tensor<2x96x32xi8>
  %1 = rlx.pack_dot_operand %fp4 : (tensor<96x64xf4E2M1FN>) -> tensor<2x96x32xi8>
  // CHECK: rlx.unpack_dot_operand %{{.*}} : (tensor<2x96x32xi8>) -> tensor<96x64xi4>
  %i4 = rlx.unpack_dot_operand %1 : (tensor<2x96x32xi8>) -> tensor<96x64xi4>
  // i8 codes (MXINT8) in groups of 1 too, stored as they are.
  // CHECK: rlx.pack_dot_operand %{{.*}} : (tensor<96x64xi8>) -> tensor<2x96x32xi8>
  %mx = rlx.pack_dot_operand %int8 : (tensor<96x64xi8>) -> tensor<2x96x32xi8>
  // CHECK: rlx.unpack_dot_operand %{{.*}} : (tensor<2x96x32xi8>) -> tensor<96x64xi8>
  %mxu = rlx.unpack_dot_operand %mx : (tensor<2x96x32xi8>) -> tensor<96x64xi8>
  // CHECK: rlx.pack_dot_operand %{{.*}} : (tensor<3x64xf8E8M0FNU>) -> tensor<2x3x32xf8E8M0FNU>
  %2 = rlx.pack_dot_operand %scales : (tensor<3x64xf8E8M0FNU>) -> tensor<2x3x32xf8E8M0FNU>
  // CHECK: rlx.unpack_dot_operand %{{.*}} : (tensor<2x3x32xf16>) -> tensor<3x64xf16>
  %3 = rlx.pack_dot_operand %h : (tensor<3x64xf16>) -> tensor<2x3x32xf16>
  %4 = rlx.unpack_dot_operand %3 : (tensor<2x3x32xf16>) -> tensor<3x64xf16>
  return
}
