// RUN: rlx-opt %s -split-input-file -verify-diagnostics -rlx-check-tensor-sizes

// 2^62 f32 elements are 2^64 bytes: the allocation size would wrap.
func.func @huge_constant() -> tensor<4611686018427387904xf32> {
  // expected-error @+1 {{'rlx.constant' op expects tensors of at most 2^62 bytes, result 0 is 'tensor<4611686018427387904xf32>'}}
  %c = rlx.constant dense<1.0> : tensor<4611686018427387904xf32>
  return %c : tensor<4611686018427387904xf32>
}

// -----

// An input: the static dims alone are too many bytes, whatever ? is.
// expected-error @+1 {{expects tensors of at most 2^62 bytes, input 1 of 'huge_input' is 'tensor<?x4294967296x4294967296xf32>'}}
func.func @huge_input(%x: tensor<2xf32>, %y: tensor<?x4294967296x4294967296xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// The product of the dims overflows int64 before the element size does.
func.func @overflowing_dims() {
  // expected-error @+1 {{'rlx.param' op expects tensors of at most 2^62 bytes, result 0 is 'tensor<8589934592x8589934592xi8>'}}
  %w = rlx.param "w" : tensor<8589934592x8589934592xi8>
  return
}

// -----

// Exactly 2^62 bytes is allowed (the runtime's cap), and so is anything
// dynamic.
func.func @at_the_cap(%x: tensor<?x?xf64>) -> tensor<576460752303423488xf64> {
  %w = rlx.param "w" : tensor<576460752303423488xf64>
  return %w : tensor<576460752303423488xf64>
}
