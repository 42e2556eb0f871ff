// rlx.rem never traps and has the dividend's sign: for integers x rem 0 = x
// and INT_MIN rem -1 = 0 (XLA's results); for floats C's fmod (x rem 0 and
// inf rem y are NaN, x rem inf = x, -4 rem 2 = -0), in generated code with a
// dynamic size.
// RUN: rlxc %s -o %t.so
// RUN: rlx-run %t.so --fn ints | FileCheck %s --check-prefix=INT
// INT: r: i32[6] = [1, 8, 0, 0, -1, -2147483648]
// RUN: rlx-run %t.so --fn floats | FileCheck %s --check-prefix=FLOAT
// FLOAT: r: f32[6] = [1.5, -0.5, nan, nan, 2.5, -0]
func.func @ints() -> (tensor<?xi32> {rlx.name = "r"}) {
  %a = rlx.constant dense<[7, 8, -2147483648, 9, -5, -2147483648]> : tensor<6xi32>
  %b = rlx.constant dense<[2, 0, -1, -3, -2, 0]> : tensor<6xi32>
  %da = tensor.cast %a : tensor<6xi32> to tensor<?xi32>
  %db = tensor.cast %b : tensor<6xi32> to tensor<?xi32>
  %r = rlx.rem %da, %db : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}
func.func @floats() -> (tensor<?xf32> {rlx.name = "r"}) {
  %a = rlx.constant dense<[5.5, -2.5, 1.0, 0x7F800000, 2.5, -4.0]> : tensor<6xf32>
  %b = rlx.constant dense<[2.0, -1.0, 0.0, 3.0, 0x7F800000, 2.0]> : tensor<6xf32>
  %da = tensor.cast %a : tensor<6xf32> to tensor<?xf32>
  %db = tensor.cast %b : tensor<6xf32> to tensor<?xf32>
  %r = rlx.rem %da, %db : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
