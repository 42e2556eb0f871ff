// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s

// CHECK-LABEL: func @narrow_casts
func.func @narrow_casts(%x: tensor<?x4xf32>, %h: tensor<4xbf16>) {
  // CHECK: rlx.cast %{{.*}} : tensor<?x4xf32> -> tensor<?x4xf8E4M3FN>
  %0 = rlx.cast %x : tensor<?x4xf32> -> tensor<?x4xf8E4M3FN>
  // CHECK: rlx.cast %{{.*}} {saturate} : tensor<?x4xf32> -> tensor<?x4xf8E5M2>
  %1 = rlx.cast %x {saturate} : tensor<?x4xf32> -> tensor<?x4xf8E5M2>
  // CHECK: rlx.cast %{{.*}} : tensor<?x4xf8E5M2> -> tensor<?x4xf4E2M1FN>
  %2 = rlx.cast %1 : tensor<?x4xf8E5M2> -> tensor<?x4xf4E2M1FN>
  // CHECK: rlx.cast %{{.*}} : tensor<4xbf16> -> tensor<4xf6E3M2FN>
  %3 = rlx.cast %h : tensor<4xbf16> -> tensor<4xf6E3M2FN>
  // Shape ops move narrow floats.
  // CHECK: rlx.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<?x4xf8E4M3FN>) -> tensor<4x?xf8E4M3FN>
  %4 = rlx.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<?x4xf8E4M3FN>) -> tensor<4x?xf8E4M3FN>
  // CHECK: rlx.bitcast %{{.*}} : tensor<?x4xf8E4M3FN> -> tensor<?x4xi8>
  %5 = rlx.bitcast %0 : tensor<?x4xf8E4M3FN> -> tensor<?x4xi8>
  // CHECK: rlx.bitcast %{{.*}} : tensor<4xf6E3M2FN> -> tensor<4xi6>
  %6 = rlx.bitcast %3 : tensor<4xf6E3M2FN> -> tensor<4xi6>
  return
}

// Casts rounding stochastically under a key (one, or one per row).
// CHECK-LABEL: func @stochastic_casts
func.func @stochastic_casts(%x: tensor<?x4xf32>, %y: tensor<3xf64>, %k: tensor<2xi32>, %ks: tensor<?x2xi32>) {
  // CHECK: rlx.cast %{{.*}} key %{{.*}} : tensor<?x4xf32>, tensor<2xi32> -> tensor<?x4xbf16>
  %0 = rlx.cast %x key %k : tensor<?x4xf32>, tensor<2xi32> -> tensor<?x4xbf16>
  // CHECK: rlx.cast %{{.*}} key %{{.*}} {saturate} : tensor<?x4xf32>, tensor<?x2xi32> -> tensor<?x4xf8E4M3FN>
  %1 = rlx.cast %x key %ks {saturate} : tensor<?x4xf32>, tensor<?x2xi32> -> tensor<?x4xf8E4M3FN>
  // CHECK: rlx.cast %{{.*}} key %{{.*}} : tensor<3xf64>, tensor<2xi32> -> tensor<3xf32>
  %2 = rlx.cast %y key %k : tensor<3xf64>, tensor<2xi32> -> tensor<3xf32>
  // CHECK: rlx.cast %{{.*}} key %{{.*}} : tensor<3xf64>, tensor<2xi32> -> tensor<3xf4E2M1FN>
  %3 = rlx.cast %y key %k : tensor<3xf64>, tensor<2xi32> -> tensor<3xf4E2M1FN>
  return
}

// CHECK-LABEL: func @fake_quant
func.func @fake_quant(%x: tensor<?x4xf32>, %y: tensor<3xf64>) {
  // CHECK: rlx.fake_quant %{{.*}} {exponent_bias = 7 : i64, exponent_bits = 4 : i64, mantissa_bits = 3 : i64, specials = "fn"} : tensor<?x4xf32>
  %0 = rlx.fake_quant %x {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7, specials = "fn"} : tensor<?x4xf32>
  // CHECK: rlx.fake_quant %{{.*}} {exponent_bias = 15 : i64, exponent_bits = 5 : i64, mantissa_bits = 2 : i64, saturate} : tensor<?x4xf32>
  %1 = rlx.fake_quant %x {exponent_bits = 5, mantissa_bits = 2, exponent_bias = 15, saturate} : tensor<?x4xf32>
  // CHECK: rlx.fake_quant %{{.*}} {exponent_bias = 127 : i64, exponent_bits = 8 : i64, mantissa_bits = 7 : i64} : tensor<3xf64>
  %2 = rlx.fake_quant %y {exponent_bits = 8, mantissa_bits = 7, exponent_bias = 127} : tensor<3xf64>
  // bf16's values are f32 values (rounded in f64).
  // CHECK: rlx.fake_quant %{{.*}} {exponent_bias = 127 : i64, exponent_bits = 8 : i64, mantissa_bits = 7 : i64} : tensor<?x4xf32>
  %3 = rlx.fake_quant %x {exponent_bits = 8, mantissa_bits = 7, exponent_bias = 127} : tensor<?x4xf32>
  return
}

// CHECK-LABEL: func @stochastic
func.func @stochastic(%x: tensor<?x4xf32>, %k: tensor<2xi32>, %kb: tensor<?x2xi32>) {
  // CHECK: rlx.fake_quant %{{.*}} key %{{.*}} {exponent_bias = 127 : i64, exponent_bits = 8 : i64, mantissa_bits = 7 : i64} : tensor<?x4xf32>, tensor<2xi32>
  %0 = rlx.fake_quant %x key %k {exponent_bits = 8, mantissa_bits = 7, exponent_bias = 127} : tensor<?x4xf32>, tensor<2xi32>
  // CHECK: rlx.fake_quant %{{.*}} key %{{.*}} {exponent_bias = 7 : i64, exponent_bits = 4 : i64, mantissa_bits = 3 : i64, saturate, specials = "fn"} : tensor<?x4xf32>, tensor<?x2xi32>
  %1 = rlx.fake_quant %x key %kb {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7, specials = "fn", saturate} : tensor<?x4xf32>, tensor<?x2xi32>
  return
}

// CHECK-LABEL: func @block_dequantize
func.func @block_dequantize(%w: tensor<64x16xf4E2M1FN>, %s: tensor<2x16xf8E8M0FNU>,
                            %x: tensor<?x?xf32>, %xs: tensor<?x?xbf16>,
                            %i: tensor<3x40xi8>, %is: tensor<3x2xf32>) {
  // CHECK: rlx.block_dequantize %{{.*}}, %{{.*}} {axis = 0 : i64, block_size = 32 : i64} : tensor<64x16xf4E2M1FN>, tensor<2x16xf8E8M0FNU> -> tensor<64x16xf32>
  %0 = rlx.block_dequantize %w, %s {axis = 0, block_size = 32} : tensor<64x16xf4E2M1FN>, tensor<2x16xf8E8M0FNU> -> tensor<64x16xf32>
  // CHECK: rlx.block_dequantize %{{.*}}, %{{.*}} {axis = 1 : i64, block_size = 4 : i64} : tensor<?x?xf32>, tensor<?x?xbf16> -> tensor<?x?xbf16>
  %1 = rlx.block_dequantize %x, %xs {axis = 1, block_size = 4} : tensor<?x?xf32>, tensor<?x?xbf16> -> tensor<?x?xbf16>
  // A last block shorter than block_size: 40 = 32 + 8.
  // CHECK: rlx.block_dequantize %{{.*}}, %{{.*}} {axis = 1 : i64, block_size = 32 : i64} : tensor<3x40xi8>, tensor<3x2xf32> -> tensor<3x40xf64>
  %2 = rlx.block_dequantize %i, %is {axis = 1, block_size = 32} : tensor<3x40xi8>, tensor<3x2xf32> -> tensor<3x40xf64>
  return
}
