// Long full reductions are split into parallel partials (both cores); the
// results stay exact where the partial sums are exact integers. Input:
// x[i] = i % 7 - 3 over 2^20 elements, so sum(x) = -3-2-1+0 = -6 (2^20 = 4
// mod 7) and sum(x*x) = 149796 * 28 + 14 = 4194302.
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.x.npy f32 1048576
// RUN: rlx-run %t.so --input x=%t.x.npy --threads 2 --outputs %t.out.safetensors | FileCheck %s
// CHECK: s: f32[] = [-6]
// CHECK: q: f32[] = [4.1943e+06]
// RUN: rlx-run %t.so --input x=%t.x.npy --threads 1 | FileCheck %s
func.func @sums(%x: tensor<1048576xf32> {rlx.name = "x"}) -> (tensor<f32> {rlx.name = "s"}, tensor<f32> {rlx.name = "q"}) {
  %s = rlx.sum %x {axes = array<i64: 0>} : (tensor<1048576xf32>) -> tensor<f32>
  %x2 = rlx.mul %x, %x : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  %q = rlx.sum %x2 {axes = array<i64: 0>} : (tensor<1048576xf32>) -> tensor<f32>
  return %s, %q : tensor<f32>, tensor<f32>
}
