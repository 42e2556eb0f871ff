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
  // expected-error @+1 {{'rlx.fake_quant' op expects a format whose values and ulps are normal 'f32' numbers (f32 or f64, fewer mantissa bits, a narrower exponent range), got e8m23 bias 127 in 'f32'}}
  %0 = rlx.fake_quant %x {exponent_bits = 8, mantissa_bits = 23, exponent_bias = 127} : tensor<3xf32>
  return
}

// -----

func.func @f16_input(%x: tensor<3xf16>) {
  // expected-error @+1 {{'rlx.fake_quant' op expects a format whose values and ulps are normal 'f16' numbers}}
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
