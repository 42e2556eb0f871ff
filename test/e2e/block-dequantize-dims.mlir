// block_dequantize reads scale (i, j floordiv 4) for x's (i, j): with the
// dims dynamic, scales of another shape stop the call with an error, never a
// read past the scales: the blocked dim in the kernel (naming the op), the
// others before the call (naming the inputs).
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.x.npy f32 3,6
// RUN: rlx-testdata npy %t.s.npy f32 3,2
// RUN: rlx-testdata npy %t.s1.npy f32 3,1
// RUN: rlx-testdata npy %t.r2.npy f32 2,2
// RUN: not rlx-run %t.so --input x=%t.x.npy --input scales=%t.s1.npy 2>&1 | FileCheck %s --check-prefix=BLOCKS
// BLOCKS: error: {{.*}}block-dequantize-dims.mlir:[[@LINE+7]]:8: rlx.block_dequantize: scales dim 1 differs from the number of blocks of x's dim 1
// RUN: not rlx-run %t.so --input x=%t.x.npy --input scales=%t.r2.npy 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: error: entry point 'f': dim 0 of input 'scales' (2) must equal dim 0 of input 'x' (3)
// RUN: rlx-run %t.so --input x=%t.x.npy --input scales=%t.s.npy | FileCheck %s
// CHECK: out0: f32[3,6]
func.func @f(%x: tensor<?x?xf32> {rlx.name = "x"},
             %scales: tensor<?x?xf32> {rlx.name = "scales"}) -> tensor<?x?xf32> {
  %0 = rlx.block_dequantize %x, %scales {axis = 1, block_size = 4} : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
