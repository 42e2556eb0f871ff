// rlx.cast from and to the unsigned integers, run: ui8 values above 127
// stay positive; a ui8 of 255 overflows f8E4M3FNUZ (largest 240) to NaN,
// or with `saturate` to 240 (200 is a tie between 192 and 208: even, 192);
// floats to ui8 truncate, through i64 (-1.0 is 255, as NumPy on x86).
// RUN: rlxc %s -o %t.so
// RUN: rlx-run %t.so --fn narrow | FileCheck %s --check-prefix=NARROW
// NARROW: s: f8E4M3FNUZ[3] = [1, 192, 240]
// NARROW: n: f8E4M3FNUZ[3] = [1, 192, nan]
// NARROW: f: f32[3] = [1, 200, 255]
// RUN: rlx-run %t.so --fn from_float | FileCheck %s --check-prefix=FLOAT
// FLOAT: u: ui8[4] = [0, 3, 255, 255]
func.func @narrow() -> (tensor<3xf8E4M3FNUZ> {rlx.name = "s"}, tensor<3xf8E4M3FNUZ> {rlx.name = "n"}, tensor<3xf32> {rlx.name = "f"}) {
  %i = rlx.constant dense<[1, 200, 255]> : tensor<3xi32>
  %x = rlx.cast %i : tensor<3xi32> -> tensor<3xui8>
  %s = rlx.cast %x {saturate} : tensor<3xui8> -> tensor<3xf8E4M3FNUZ>
  %n = rlx.cast %x : tensor<3xui8> -> tensor<3xf8E4M3FNUZ>
  %f = rlx.cast %x : tensor<3xui8> -> tensor<3xf32>
  return %s, %n, %f : tensor<3xf8E4M3FNUZ>, tensor<3xf8E4M3FNUZ>, tensor<3xf32>
}
func.func @from_float() -> (tensor<4xui8> {rlx.name = "u"}) {
  %f = rlx.constant dense<[0.5, 3.9, 255.0, -1.0]> : tensor<4xf32>
  %u = rlx.cast %f : tensor<4xf32> -> tensor<4xui8>
  return %u : tensor<4xui8>
}
