// Dynamic dims that the compiled code assumes equal are checked by the
// runtime before the call, with a message naming both dims.
// RUN: rlxc %s -o %t.so
// RUN: rlx-run %t.so --info | FileCheck %s --check-prefix=INFO
// INFO: x: f32[?,4]
// RUN: rlx-testdata npy %t.x2.npy f32 2,4
// RUN: rlx-testdata npy %t.y3.npy f32 3,4
// RUN: rlx-testdata npy %t.y2.npy f32 2,4
// RUN: rlx-testdata npy %t.z5.npy f32 5
// RUN: rlx-testdata npy %t.z4.npy f32 4
// RUN: not rlx-run %t.so --input x=%t.x2.npy --input y=%t.y3.npy --input z=%t.z4.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: rlx-run: error: entry point 'f': dim 0 of input 'y' (3) must equal dim 0 of input 'x' (2)
// RUN: not rlx-run %t.so --input x=%t.x2.npy --input y=%t.y2.npy --input z=%t.z5.npy 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: rlx-run: error: entry point 'f': dim 0 of input 'z' (5) must be 4
// RUN: rlx-run %t.so --input x=%t.x2.npy --input y=%t.y2.npy --input z=%t.z4.npy | FileCheck %s
// CHECK: out0: f32[2,4]
func.func @f(%x: tensor<?x4xf32> {rlx.name = "x"}, %y: tensor<?x4xf32> {rlx.name = "y"},
             %z: tensor<?xf32> {rlx.name = "z"}) -> tensor<?x4xf32> {
  %0 = rlx.add %x, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = rlx.mul %0, %z : (tensor<?x4xf32>, tensor<?xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
