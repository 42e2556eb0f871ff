// Splat constants are fills at run time, not elements in the artifact: a
// dense<1.0> : tensor<8192x8192xf32> weight used to make a 256 MiB .so, and
// 2^40 elements exhausted the compiler's memory.
// RUN: rm -rf %t && split-file %s %t
// RUN: rlxc %t/ones.mlir -o %t/ones.so
// RUN: python3 -c "import os, sys; n = os.path.getsize(sys.argv[1]); print('bytes', n); sys.exit(n >= 1 << 20)" %t/ones.so
// x[i] = (i % 7) - 3 sums to -5 over 8192 elements, each of the 8192
// columns of x * ones is -5, and their sum is -40960.
// RUN: rlx-testdata npy %t/x.npy f32 1,8192
// RUN: rlx-run %t/ones.so --input x=%t/x.npy | FileCheck %s --check-prefix=ONES
// ONES: total: f32[] = [-40960]
// ONES: first: f32[1,4] = [-5, -5, -5, -5]

// 2^40 elements (4 TiB): compiles to a small artifact; a call cannot get
// the memory and fails with a status, not a signal.
// RUN: rlxc %t/tera.mlir -o %t/tera.so
// RUN: python3 -c "import os, sys; sys.exit(os.path.getsize(sys.argv[1]) >= 1 << 20)" %t/tera.so
// RUN: not rlx-run %t/tera.so 2>&1 | FileCheck %s --check-prefix=TERA
// TERA: rlx-run: error: entry point 'main' ran out of memory allocating {{4398046511[0-9]+}} bytes

// A static type of 2^62 f32 elements (2^64 bytes) is a compile error naming
// the type, not an artifact that overruns a wrapped-around allocation.
// RUN: not rlxc %t/huge.mlir -o %t/huge.so 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not test -e %t/huge.so
// HUGE: huge.mlir:2:8: error: 'rlx.constant' op expects tensors of at most 2^62 bytes, result 0 is 'tensor<4611686018427387904xf32>'

//--- ones.mlir
func.func @main(%x: tensor<1x8192xf32> {rlx.name = "x"}) -> (tensor<f32> {rlx.name = "total"}, tensor<1x4xf32> {rlx.name = "first"}) {
  %ones = rlx.constant dense<1.0> : tensor<8192x8192xf32>
  %y = rlx.matmul %x, %ones : (tensor<1x8192xf32>, tensor<8192x8192xf32>) -> tensor<1x8192xf32>
  %total = rlx.sum %y {axes = array<i64: 0, 1>} : (tensor<1x8192xf32>) -> tensor<f32>
  %first = rlx.slice %y {start = array<i64: 0, 0>, limit = array<i64: 1, 4>, strides = array<i64: 1, 1>} : (tensor<1x8192xf32>) -> tensor<1x4xf32>
  return %total, %first : tensor<f32>, tensor<1x4xf32>
}
//--- tera.mlir
func.func @main() -> tensor<1099511627776xf32> {
  %c = rlx.constant dense<1.0> : tensor<1099511627776xf32>
  return %c : tensor<1099511627776xf32>
}
//--- huge.mlir
func.func @main(%s: tensor<f32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<4611686018427387904xf32>
  %m = rlx.max %c {axes = array<i64: 0>} : (tensor<4611686018427387904xf32>) -> tensor<f32>
  %y = rlx.add %m, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}
