// rlxc --stats reports time per phase, the kernels each entry point became
// (with the ops fused into each) and the workspace arena against the
// liveness lower bound.
// RUN: rlxc %s -o %t.so --stats 2>&1 | FileCheck %s
// CHECK: rlxc stats
// CHECK: time per phase:
// CHECK: lower
// CHECK: codegen
// CHECK: llvm+link
// CHECK: total
// CHECK: f: 4 kernels
// CHECK-NEXT: fill (1 ops)
// CHECK-NEXT: matmul (1 ops)
// The bias add, tanh and scaling fuse into one loop nest, computed in place
// in the product (4 rows: no whole 8-row tile, so no loop over tiles).
// CHECK-NEXT: elementwise (3 ops)
// CHECK-NEXT: transpose (1 ops)
// CHECK: workspace
// The scaled product, transposed, is the one temporary; the output is not
// workspace.
// CHECK: f{{ +}}256 bytes, liveness lower bound 256 bytes (1.00x)
// The runtime reads both figures from the manifest.
// RUN: rlx-run %t.so --info | FileCheck %s --check-prefix=INFO
// INFO: entry point 'f' (workspace 256 bytes, liveness lower bound 256)
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<16x4xf32> {
  %m = rlx.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = rlx.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %t = rlx.tanh %a : tensor<4x16xf32>
  %c = rlx.constant dense<2.0> : tensor<f32>
  %s = rlx.mul %t, %c : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %r = rlx.transpose %s {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  return %r : tensor<16x4xf32>
}
