// Kernels big enough to run on both cores agree with an independent kernel:
// x (4096 x 512, values -3..3 from rlx-testdata) times a matrix of ones is
// every row sum, which the reduction kernel computes separately; both are
// small integers, exact in f32, so the largest difference is exactly 0 on
// one thread and on two (parallel matmul rows, parallel reduction rows,
// parallel elementwise difference).
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.x.npy f32 4096,512
// RUN: rlx-run %t.so --input x=%t.x.npy --threads 1 | FileCheck %s
// RUN: rlx-run %t.so --input x=%t.x.npy --threads 2 | FileCheck %s
// CHECK: d: f32[] = [0]
// The pattern is (i mod 7) - 3 over 2,097,152 = 7 x 299,593 + 1 elements:
// full cycles sum to 0, the one left over is -3.
// CHECK: s: f32[] = [-3]
func.func @f(%x: tensor<?x512xf32> {rlx.name = "x"}) -> (tensor<f32> {rlx.name = "d"}, tensor<f32> {rlx.name = "s"}) {
  %one = rlx.constant dense<1.0> : tensor<512x256xf32>
  %m = rlx.matmul %x, %one : (tensor<?x512xf32>, tensor<512x256xf32>) -> tensor<?x256xf32>
  %r = rlx.sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<?x512xf32>) -> tensor<?x1xf32>
  %diff = rlx.sub %m, %r : (tensor<?x256xf32>, tensor<?x1xf32>) -> tensor<?x256xf32>
  %a = rlx.abs %diff : tensor<?x256xf32>
  %d = rlx.max %a {axes = array<i64: 0, 1>} : (tensor<?x256xf32>) -> tensor<f32>
  %s = rlx.sum %r {axes = array<i64: 0, 1>} : (tensor<?x1xf32>) -> tensor<f32>
  return %d, %s : tensor<f32>, tensor<f32>
}
