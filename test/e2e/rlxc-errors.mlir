// Shape errors are verifier errors at file:line:col and rlxc exits non-zero.
// RUN: not rlxc %s -o %t.so 2>&1 | FileCheck %s
// RUN: not test -e %t.so
// CHECK: rlxc-errors.mlir:[[@LINE+3]]:8: error: 'rlx.matmul' op expects contracting dims to match
func.func @bad(%x: tensor<?x784xf32>) -> tensor<?x10xf32> {
  %w = rlx.param "w" : tensor<748x10xf32>
  %0 = rlx.matmul %x, %w : (tensor<?x784xf32>, tensor<748x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}
