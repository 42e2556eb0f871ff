// A dynamic reshape whose input does not divide into the result's static
// part is an error naming the op's location, not a truncated result.
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.10.npy f32 10
// RUN: not rlx-run %t.so --fn rows --input x=%t.10.npy 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: rlx-run: error: entry point 'rows': {{.*}}reshape-divisibility.mlir:[[# @LINE + 6]]:8: reshape to tensor<?x4xf32>: the input's element count is not a multiple of 4
// A size that divides passes.
// RUN: rlx-testdata npy %t.12.npy f32 12
// RUN: rlx-run %t.so --fn rows --input x=%t.12.npy | FileCheck %s --check-prefix=OK
// OK: y: f32[3,4]
func.func @rows(%x: tensor<?xf32> {rlx.name = "x"}) -> (tensor<?x4xf32> {rlx.name = "y"}) {
  %y = rlx.reshape %x : (tensor<?xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
