// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @pack_i32(%w: tensor<8x32xi32>) {
  // expected-error @+1 {{'rlx.pack_dot_operand' op operand #0 must be ranked tensor of i8, bf16, f32, or a block-scaled weight's codes or scales (f16, a narrow float or integer, f8E8M0FNU) values}}
  %0 = rlx.pack_dot_operand %w : (tensor<8x32xi32>) -> tensor<1x2x128xi32>
  return
}

// -----

func.func @pack_element_changes(%w: tensor<8x32xi8>) {
  // expected-error @+1 {{'rlx.pack_dot_operand' op expects the packed tensor to hold 'i8' as 'i8', got 'bf16'}}
  %0 = rlx.pack_dot_operand %w : (tensor<8x32xi8>) -> tensor<1x4x64xbf16>
  return
}

// -----

func.func @pack_sub_byte_in_place(%w: tensor<8x32xf4E2M1FN>) {
  // expected-error @+1 {{'rlx.pack_dot_operand' op expects the packed tensor to hold 'f4E2M1FN' as 'i8', got 'f4E2M1FN'}}
  %0 = rlx.pack_dot_operand %w : (tensor<8x32xf4E2M1FN>) -> tensor<1x8x32xf4E2M1FN>
  return
}

// -----

func.func @pack_dynamic(%w: tensor<?x32xi8>) {
  // expected-error @+1 {{'rlx.pack_dot_operand' op expects an unpacked tensor of static shape and rank 2 or more, got 'tensor<?x32xi8>'}}
  %0 = rlx.pack_dot_operand %w : (tensor<?x32xi8>) -> tensor<1x2x128xi8>
  return
}

// -----

func.func @pack_vector(%w: tensor<32xi8>) {
  // expected-error @+1 {{'rlx.pack_dot_operand' op expects an unpacked tensor of static shape and rank 2 or more, got 'tensor<32xi8>'}}
  %0 = rlx.pack_dot_operand %w : (tensor<32xi8>) -> tensor<1x1x128xi8>
  return
}

// -----

func.func @pack_wrong_groups(%w: tensor<37x50xi8>) {
  // expected-error @+1 {{'rlx.pack_dot_operand' op expects the packed layout of 'tensor<37x50xi8>' (as [37, 50]) to be 'tensor<2x10x128xi8>' (or 'tensor<2x37x32xi8>' or 'tensor<4x37x16xi8>' in groups of 1), got 'tensor<2x9x128xi8>'}}
  %0 = rlx.pack_dot_operand %w : (tensor<37x50xi8>) -> tensor<2x9x128xi8>
  return
}

// -----

func.func @unpack_wrong_shape(%p: tensor<2x10x128xi8>) {
  // expected-error @+1 {{'rlx.unpack_dot_operand' op expects the packed layout of 'tensor<37x70xi8>' (as [37, 70]) to be 'tensor<3x10x128xi8>' (or 'tensor<3x37x32xi8>' or 'tensor<5x37x16xi8>' in groups of 1), got 'tensor<2x10x128xi8>'}}
  %0 = rlx.unpack_dot_operand %p : (tensor<2x10x128xi8>) -> tensor<37x70xi8>
  return
}

// -----

func.func @unpack_f64(%p: tensor<1x8x32xf64>) {
  // expected-error @+1 {{'rlx.unpack_dot_operand' op operand #0 must be ranked tensor of i8, bf16, f32, or a block-scaled weight's codes or scales (f16, a narrow float or integer, f8E8M0FNU) values}}
  %0 = rlx.unpack_dot_operand %p : (tensor<1x8x32xf64>) -> tensor<8x32xf64>
  return
}

// -----

// i8 packs in groups of 4 (the int8 kernel's) or 1 (block-scaled codes),
// not 2.
func.func @pack_i8_in_pairs(%w: tensor<64x64xi8>) {
  // expected-error @+1 {{'rlx.pack_dot_operand' op expects the packed layout of 'tensor<64x64xi8>' (as [64, 64]) to be 'tensor<2x16x128xi8>' (or 'tensor<2x64x32xi8>' or 'tensor<4x64x16xi8>' in groups of 1), got 'tensor<2x32x64xi8>'}}
  %0 = rlx.pack_dot_operand %w : (tensor<64x64xi8>) -> tensor<2x32x64xi8>
  return
}

// -----

// f32 panels are 32 columns wide (AVX-512's register tile) or 16 (AVX2's),
// not 8.
func.func @pack_f32_narrow_panels(%w: tensor<64x64xf32>) {
  // expected-error @+1 {{'rlx.pack_dot_operand' op expects the packed layout of 'tensor<64x64xf32>' (as [64, 64]) to be 'tensor<2x64x32xf32>' (or 'tensor<2x64x32xf32>' or 'tensor<4x64x16xf32>' in groups of 1), got 'tensor<8x64x8xf32>'}}
  %0 = rlx.pack_dot_operand %w : (tensor<64x64xf32>) -> tensor<8x64x8xf32>
  return
}

// -----

// bf16 packs only in the dot-product kernel's pairs, 32 columns wide.
func.func @pack_bf16_in_16_columns(%w: tensor<64x64xbf16>) {
  // expected-error @+1 {{'rlx.pack_dot_operand' op expects the packed layout of 'tensor<64x64xbf16>' (as [64, 64]) to be 'tensor<2x32x64xbf16>', got 'tensor<4x64x16xbf16>'}}
  %0 = rlx.pack_dot_operand %w : (tensor<64x64xbf16>) -> tensor<4x64x16xbf16>
  return
}
