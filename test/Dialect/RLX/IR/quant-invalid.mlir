// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @cast_e8m0(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.cast' op does not convert 'f8E8M0FNU' (narrow floats: f8E4M3FN, f8E5M2}}
  %0 = rlx.cast %x : tensor<3xf32> -> tensor<3xf8E8M0FNU>
  return
}

// -----

func.func @saturate_wide(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.cast' op expects a narrow float result with 'saturate', got 'bf16'}}
  %0 = rlx.cast %x {saturate} : tensor<3xf32> -> tensor<3xbf16>
  return
}

// -----

func.func @arith_on_f8(%x: tensor<3xf8E4M3FN>) {
  // expected-error @+1 {{'rlx.add' op operand #0 must be ranked tensor of}}
  %0 = rlx.add %x, %x : (tensor<3xf8E4M3FN>, tensor<3xf8E4M3FN>) -> tensor<3xf8E4M3FN>
  return
}

// -----

func.func @specials(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.fake_quant' op expects specials among ieee, fn, fnuz, finite, got 'nan'}}
  %0 = rlx.fake_quant %x {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7, specials = "nan"} : tensor<3xf32>
  return
}

// -----

func.func @bits(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.fake_quant' op expects 1 to 11 exponent bits and 1 to 52 mantissa bits, got 4 and 0}}
  %0 = rlx.fake_quant %x {exponent_bits = 4, mantissa_bits = 0, exponent_bias = 7} : tensor<3xf32>
  return
}

// -----

func.func @too_wide(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.fake_quant' op expects a format whose values are 'f32' numbers (f32 or f64, at most as many mantissa bits, a range within its own), got e9m3 bias 255 in 'f32'}}
  %0 = rlx.fake_quant %x {exponent_bits = 9, mantissa_bits = 3, exponent_bias = 255} : tensor<3xf32>
  return
}

// -----

func.func @too_precise(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.fake_quant' op expects a format whose values are 'f32' numbers}}
  %0 = rlx.fake_quant %x {exponent_bits = 8, mantissa_bits = 24, exponent_bias = 127} : tensor<3xf32>
  return
}

// -----

func.func @key_type(%x: tensor<3xf32>, %k: tensor<3xi32>) {
  // expected-error @+1 {{'rlx.fake_quant' op expects a key of type tensor<...x2xi32> (batch dims, then two 32-bit words), got 'tensor<3xi32>'}}
  %0 = rlx.fake_quant %x key %k {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7} : tensor<3xf32>, tensor<3xi32>
  return
}

// -----

func.func @key_rank(%x: tensor<3xf32>, %k: tensor<3x4x2xi32>) {
  // expected-error @+1 {{'rlx.fake_quant' op expects the key's batch dims to be x's leading dims, got a key of 2 batch dims for x of rank 1}}
  %0 = rlx.fake_quant %x key %k {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7} : tensor<3xf32>, tensor<3x4x2xi32>
  return
}

// -----

func.func @key_batch(%x: tensor<3x5xf32>, %k: tensor<4x2xi32>) {
  // expected-error @+1 {{'rlx.fake_quant' op expects the key's batch dims to be x's leading dims, got key dim 0 of 4 for x's 3}}
  %0 = rlx.fake_quant %x key %k {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7} : tensor<3x5xf32>, tensor<4x2xi32>
  return
}

// -----

func.func @key_result(%x: tensor<3xf32>, %k: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.fake_quant' op failed to verify that all of {x, result} have same type}}
  %0 = "rlx.fake_quant"(%x, %k) {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7} : (tensor<3xf32>, tensor<2xi32>) -> tensor<3xf64>
  return
}

// -----

func.func @f16_input(%x: tensor<3xf16>) {
  // expected-error @+1 {{'rlx.fake_quant' op expects a format whose values are 'f16' numbers (f32 or f64}}
  %0 = rlx.fake_quant %x {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7} : tensor<3xf16>
  return
}

// -----

func.func @bitcast_width(%x: tensor<3xf8E4M3FN>) {
  // expected-error @+1 {{'rlx.bitcast' op expects element types of one bit width, got 'f8E4M3FN' and 'i32'}}
  %0 = rlx.bitcast %x : tensor<3xf8E4M3FN> -> tensor<3xi32>
  return
}

// -----

func.func @bitcast_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.bitcast' op expects the result shape to equal the operand shape [3], got [4]}}
  %0 = rlx.bitcast %x : tensor<3xf32> -> tensor<4xi32>
  return
}

// -----

func.func @block_dequantize_x_type(%x: tensor<4xi1>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'rlx.block_dequantize' op expects x of a float type or a signless integer of 2 to 32 bits, got 'i1'}}
  %0 = rlx.block_dequantize %x, %s {axis = 0, block_size = 4} : tensor<4xi1>, tensor<1xf32> -> tensor<4xf32>
  return
}

// -----

func.func @block_dequantize_scale_type(%x: tensor<4xf8E4M3FN>, %s: tensor<1xi8>) {
  // expected-error @+1 {{'rlx.block_dequantize' op expects scales of f8E8M0FNU, f16, bf16, f32 or f64, got 'i8'}}
  %0 = rlx.block_dequantize %x, %s {axis = 0, block_size = 4} : tensor<4xf8E4M3FN>, tensor<1xi8> -> tensor<4xf32>
  return
}

// -----

func.func @block_dequantize_result_type(%x: tensor<4xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'rlx.block_dequantize' op result #0 must be ranked tensor of f16, bf16, f32 or f64 values}}
  %0 = rlx.block_dequantize %x, %s {axis = 0, block_size = 4} : tensor<4xf8E4M3FN>, tensor<1xf32> -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @block_dequantize_rank(%x: tensor<2x4xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'rlx.block_dequantize' op expects scales of x's rank 2, got rank 1}}
  %0 = rlx.block_dequantize %x, %s {axis = 1, block_size = 4} : tensor<2x4xf32>, tensor<1xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @block_dequantize_axis(%x: tensor<2x4xf32>, %s: tensor<2x1xf32>) {
  // expected-error @+1 {{'rlx.block_dequantize' op expects an axis in [0, 2), got 2}}
  %0 = rlx.block_dequantize %x, %s {axis = 2, block_size = 4} : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @block_dequantize_block_size(%x: tensor<2x4xf32>, %s: tensor<2x1xf32>) {
  // expected-error @+1 {{'rlx.block_dequantize' op expects a positive block_size, got 0}}
  %0 = rlx.block_dequantize %x, %s {axis = 1, block_size = 0} : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @block_dequantize_result_shape(%x: tensor<2x4xf32>, %s: tensor<2x1xf32>) {
  // expected-error @+1 {{'rlx.block_dequantize' op expects the result shape to equal x's [2,4], got [4,2]}}
  %0 = rlx.block_dequantize %x, %s {axis = 1, block_size = 4} : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @block_dequantize_blocks(%x: tensor<2x40xf32>, %s: tensor<2x1xf32>) {
  // expected-error @+1 {{'rlx.block_dequantize' op expects scales dim 1 of 2 (one scale per block of x's dim), got 1}}
  %0 = rlx.block_dequantize %x, %s {axis = 1, block_size = 32} : tensor<2x40xf32>, tensor<2x1xf32> -> tensor<2x40xf32>
  return
}

// -----

func.func @block_dequantize_other_dim(%x: tensor<2x40xf32>, %s: tensor<3x2xf32>) {
  // expected-error @+1 {{'rlx.block_dequantize' op expects scales dim 0 of 2 (x's dim), got 3}}
  %0 = rlx.block_dequantize %x, %s {axis = 1, block_size = 32} : tensor<2x40xf32>, tensor<3x2xf32> -> tensor<2x40xf32>
  return
}

// -----

func.func @stochastic_cast_from_bf16(%x: tensor<3xbf16>, %k: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.cast' op rounds stochastically (a key) from f32 or f64, got 'bf16'}}
  %0 = rlx.cast %x key %k : tensor<3xbf16>, tensor<2xi32> -> tensor<3xf8E4M3FN>
  return
}

// -----

func.func @stochastic_cast_widening(%x: tensor<3xf32>, %k: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.cast' op rounds stochastically (a key) to a float type of fewer mantissa bits than 'f32' (bf16, f16, a narrow float), got 'f64'}}
  %0 = rlx.cast %x key %k : tensor<3xf32>, tensor<2xi32> -> tensor<3xf64>
  return
}

// -----

func.func @stochastic_cast_to_int(%x: tensor<3xf32>, %k: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.cast' op rounds stochastically (a key) to a float type of fewer mantissa bits than 'f32' (bf16, f16, a narrow float), got 'i8'}}
  %0 = rlx.cast %x key %k : tensor<3xf32>, tensor<2xi32> -> tensor<3xi8>
  return
}

// -----

func.func @stochastic_cast_bad_key(%x: tensor<3xf32>, %k: tensor<3xi32>) {
  // expected-error @+1 {{'rlx.cast' op expects a key of type tensor<...x2xi32> (batch dims, then two 32-bit words), got 'tensor<3xi32>'}}
  %0 = rlx.cast %x key %k : tensor<3xf32>, tensor<3xi32> -> tensor<3xbf16>
  return
}

// -----

func.func @stochastic_cast_key_rank(%x: tensor<3xf32>, %k: tensor<3x1x2xi32>) {
  // expected-error @+1 {{'rlx.cast' op expects the key's batch dims to be x's leading dims, got a key of 2 batch dims for x of rank 1}}
  %0 = rlx.cast %x key %k : tensor<3xf32>, tensor<3x1x2xi32> -> tensor<3xbf16>
  return
}

// -----

func.func @stochastic_cast_key_dim(%x: tensor<3x4xf32>, %k: tensor<2x2xi32>) {
  // expected-error @+1 {{'rlx.cast' op expects the key's batch dims to be x's leading dims, got key dim 0 of 2 for x's 3}}
  %0 = rlx.cast %x key %k : tensor<3x4xf32>, tensor<2x2xi32> -> tensor<3x4xbf16>
  return
}
