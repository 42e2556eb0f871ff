// Stochastic rounding reads key row i for x's row i: with both batch dims
// dynamic, a key of another row count stops the call with an error naming
// the op, never a read past the key.
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.x3.npy f32 3,5
// RUN: rlx-testdata npy %t.k3.npy i32 3,2
// RUN: rlx-testdata npy %t.k2.npy i32 2,2
// RUN: not rlx-run %t.so --input x=%t.x3.npy --input keys=%t.k2.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: error: {{.*}}stochastic-rounding-keys.mlir:14:8: rlx.fake_quant: the key's batch dim 0 differs from x's dim 0
// RUN: rlx-run %t.so --input x=%t.x3.npy --input keys=%t.k3.npy | FileCheck %s
// CHECK: out0: f32[3,5]
func.func @f(%x: tensor<?x5xf32> {rlx.name = "x"},
             %keys: tensor<?x2xi32> {rlx.name = "keys"}) -> tensor<?x5xf32> {
  %0 = rlx.fake_quant %x key %keys {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7, specials = "fn"} : tensor<?x5xf32>, tensor<?x2xi32>
  return %0 : tensor<?x5xf32>
}
