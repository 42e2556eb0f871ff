// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @key_dtype(%key: tensor<2xi64>) {
  // expected-error @+1 {{'rlx.random_bits' op expects a key of type tensor<...x2xi32> (batch dims, then two 32-bit words), got 'tensor<2xi64>'}}
  %0 = rlx.random_bits %key : tensor<2xi64> -> tensor<3xi32>
  return
}

// -----

func.func @key_shape(%key: tensor<3xi32>) {
  // expected-error @+1 {{'rlx.random_uniform' op expects a key of type tensor<...x2xi32> (batch dims, then two 32-bit words), got 'tensor<3xi32>'}}
  %0 = rlx.random_uniform %key : tensor<3xi32> -> tensor<3xf32>
  return
}

// -----

func.func @key_rank0(%key: tensor<i32>) {
  // expected-error @+1 {{'rlx.random_split' op expects a key of type tensor<...x2xi32> (batch dims, then two 32-bit words), got 'tensor<i32>'}}
  %0 = rlx.random_split %key {num = 2 : i64} : (tensor<i32>) -> tensor<2x2xi32>
  return
}

// -----

func.func @key_dynamic_words(%key: tensor<?xi32>) {
  // expected-error @+1 {{'rlx.random_normal' op expects a key of type tensor<...x2xi32> (batch dims, then two 32-bit words), got 'tensor<?xi32>'}}
  %0 = rlx.random_normal %key : tensor<?xi32> -> tensor<3xf32>
  return
}

// -----

func.func @bits_result_type(%key: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.random_bits' op expects an i32 result, got 'tensor<3xi64>'}}
  %0 = rlx.random_bits %key : tensor<2xi32> -> tensor<3xi64>
  return
}

// -----

func.func @uniform_result_type(%key: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.random_uniform' op expects an f32 or f64 result, got 'tensor<3xf16>'}}
  %0 = rlx.random_uniform %key : tensor<2xi32> -> tensor<3xf16>
  return
}

// -----

func.func @normal_result_type(%key: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.random_normal' op expects an f32 or f64 result, got 'tensor<3xi32>'}}
  %0 = rlx.random_normal %key : tensor<2xi32> -> tensor<3xi32>
  return
}

// -----

func.func @batch_mismatch(%keys: tensor<4x2xi32>) {
  // expected-error @+1 {{'rlx.random_bits' op expects the result to start with the key's batch dims [4], got [3,5]}}
  %0 = rlx.random_bits %keys : tensor<4x2xi32> -> tensor<3x5xi32>
  return
}

// -----

func.func @batch_dynamic_mismatch(%keys: tensor<?x2xi32>) {
  // expected-error @+1 {{'rlx.random_normal' op expects the result to start with the key's batch dims [?], got [4]}}
  %0 = rlx.random_normal %keys : tensor<?x2xi32> -> tensor<4xf32>
  return
}

// -----

func.func @dynamic_sample(%key: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.random_uniform' op expects static sample dims (after the key's batch dims), got [?,3]}}
  %0 = rlx.random_uniform %key : tensor<2xi32> -> tensor<?x3xf32>
  return
}

// -----

func.func @uniform_bounds(%key: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.random_uniform' op expects finite minval < maxval, got 1.000000e+00 and 0.000000e+00}}
  %0 = rlx.random_uniform %key {minval = 1.0, maxval = 0.0} : tensor<2xi32> -> tensor<3xf32>
  return
}

// -----

func.func @truncated_normal_bounds(%key: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.random_truncated_normal' op expects lower < upper (either may be infinite), got 1.000000e+00 and 1.000000e+00}}
  %0 = rlx.random_truncated_normal %key {lower = 1.0, upper = 1.0} : tensor<2xi32> -> tensor<3xf32>
  return
}

// -----

func.func @truncated_normal_result_type(%key: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.random_truncated_normal' op expects an f32 or f64 result, got 'tensor<3xbf16>'}}
  %0 = rlx.random_truncated_normal %key {lower = -1.0, upper = 1.0} : tensor<2xi32> -> tensor<3xbf16>
  return
}

// -----

func.func @truncated_normal_batch(%keys: tensor<4x2xi32>) {
  // expected-error @+1 {{'rlx.random_truncated_normal' op expects the result to start with the key's batch dims [4], got [3]}}
  %0 = rlx.random_truncated_normal %keys {lower = -1.0, upper = 1.0} : tensor<4x2xi32> -> tensor<3xf32>
  return
}

// -----

func.func @split_num(%key: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.random_split' op expects num >= 1, got 0}}
  %0 = rlx.random_split %key {num = 0 : i64} : (tensor<2xi32>) -> tensor<0x2xi32>
  return
}

// -----

func.func @split_result(%key: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.random_split' op expects result shape [3,2], got [2,3]}}
  %0 = rlx.random_split %key {num = 3 : i64} : (tensor<2xi32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @fold_in_data_type(%key: tensor<2xi32>, %data: tensor<i64>) {
  // expected-error @+1 {{'rlx.random_fold_in' op expects ranked i32 data, got 'tensor<i64>'}}
  %0 = rlx.random_fold_in %key, %data : (tensor<2xi32>, tensor<i64>) -> tensor<2xi32>
  return
}

// -----

func.func @fold_in_broadcast(%keys: tensor<3x2xi32>, %data: tensor<4xi32>) {
  // expected-error @+1 {{'rlx.random_fold_in' op expects key batch dims [3] and data dims [4] that broadcast}}
  %0 = rlx.random_fold_in %keys, %data : (tensor<3x2xi32>, tensor<4xi32>) -> tensor<3x2xi32>
  return
}

// -----

func.func @fold_in_result(%key: tensor<2xi32>, %data: tensor<4xi32>) {
  // expected-error @+1 {{'rlx.random_fold_in' op expects result shape [4,2], got [2]}}
  %0 = rlx.random_fold_in %key, %data : (tensor<2xi32>, tensor<4xi32>) -> tensor<2xi32>
  return
}

// -----

func.func private @sample(%key: tensor<2xi32>, %x: tensor<3xf32>) -> tensor<f32> {
  %u = rlx.random_uniform %key : tensor<2xi32> -> tensor<3xf32>
  %p = rlx.mul %u, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %p {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

func.func @grad_wrt_key(%key: tensor<2xi32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op cannot differentiate with respect to input 0 of type 'tensor<2xi32>': it is a PRNG key (of 'rlx.random_uniform'), and keys carry no gradient}}
  %0 = rlx.grad @sample(%key, %x) {wrt = array<i64: 0>} : (tensor<2xi32>, tensor<3xf32>) -> tensor<2xi32>
  return
}
