// Integer division never traps: x / 0 = -1 and INT_MIN / -1 = INT_MIN (as
// XLA defines them), both in generated code (dynamic size, a partial last
// vector tile) and when the compiler folds constants.
// RUN: rlxc %s -o %t.so
// RUN: rlx-run %t.so --fn runtime | FileCheck %s
// RUN: rlx-run %t.so --fn folded | FileCheck %s
// CHECK: q: i32[5] = [3, -1, -2147483648, -3, 2]
func.func @runtime() -> (tensor<?xi32> {rlx.name = "q"}) {
  %a = rlx.constant dense<[7, 8, -2147483648, 9, -5]> : tensor<5xi32>
  %b = rlx.constant dense<[2, 0, -1, -3, -2]> : tensor<5xi32>
  %da = tensor.cast %a : tensor<5xi32> to tensor<?xi32>
  %db = tensor.cast %b : tensor<5xi32> to tensor<?xi32>
  %q = rlx.div %da, %db : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return %q : tensor<?xi32>
}
func.func @folded() -> (tensor<5xi32> {rlx.name = "q"}) {
  %a = rlx.constant dense<[7, 8, -2147483648, 9, -5]> : tensor<5xi32>
  %b = rlx.constant dense<[2, 0, -1, -3, -2]> : tensor<5xi32>
  %q = rlx.div %a, %b : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
  return %q : tensor<5xi32>
}
