// Padded 3x3 convs with 64 input channels, which the CPU runs as products
// per filter tap over the pixels each tap reads inside the image
// (rlx-cpu-conv-tap-products): by a weight it prepacks into panels (with
// bias and relu after it, and strided), and by a smaller one it does not,
// each compared exactly with plain loops (test/Inputs/conv_taps.py), with
// static shapes, a dynamic batch, and every dim dynamic (no taps: the
// image size must be static; the im2col product runs instead).
// RUN: mkdir -p %t.s %t.d %t.a
// RUN: python3 %inputs/conv_taps.py weights %t.w.safetensors

// RUN: python3 %inputs/conv_taps.py model static > %t.static.mlir
// RUN: python3 %inputs/conv_taps.py inputs %t.s 2 1
// RUN: rlxc %t.static.mlir -o %t.static.so
// RUN: rlx-run %t.static.so --weights %t.w.safetensors --input x=%t.s/x.npy --outputs %t.s/out.safetensors
// RUN: python3 %inputs/conv_taps.py check %t.s %t.s/out.safetensors | FileCheck %s

// Three images, the column groups forked over two threads.
// RUN: python3 %inputs/conv_taps.py model dyn > %t.dyn.mlir
// RUN: python3 %inputs/conv_taps.py inputs %t.d 3 2
// RUN: rlxc %t.dyn.mlir -o %t.dyn.so
// RUN: env RLX_NUM_THREADS=2 rlx-run %t.dyn.so --weights %t.w.safetensors --input x=%t.d/x.npy --outputs %t.d/out.safetensors
// RUN: python3 %inputs/conv_taps.py check %t.d %t.d/out.safetensors | FileCheck %s
// AVX2's 16-column panels (on AVX-512 hosts too).
// RUN: rlxc %t.dyn.mlir --cpu=x86-64-v3 -o %t.v3.so
// RUN: env RLX_NUM_THREADS=2 rlx-run %t.v3.so --weights %t.w.safetensors --input x=%t.d/x.npy --outputs %t.d/v3.safetensors
// RUN: python3 %inputs/conv_taps.py check %t.d %t.d/v3.safetensors | FileCheck %s

// RUN: python3 %inputs/conv_taps.py model alldyn > %t.alldyn.mlir
// RUN: python3 %inputs/conv_taps.py inputs %t.a 1 3
// RUN: rlxc %t.alldyn.mlir -o %t.alldyn.so
// RUN: rlx-run %t.alldyn.so --weights %t.w.safetensors --input x=%t.a/x.npy --outputs %t.a/out.safetensors
// RUN: python3 %inputs/conv_taps.py check %t.a %t.a/out.safetensors | FileCheck %s

// CHECK: conv taps: all 3 outputs exact

// Each of the three convs is a loop of column groups (parallel) whose
// taps read the input in place, strided by 2 for y2; the prepacked ones
// slices of two 32-column panels, the other columns of its filter matrix
// (40 columns: one group, so no parallel loop).
// RUN: rlxc %t.dyn.mlir --compile-to=fuse | FileCheck %s --check-prefix=FUSED
// FUSED: tensor.extract_slice %arg0[{{.+}}] [1, 1, 5, 64] [1, 1, 1, 1] : tensor<?x6x6x64xf32> to tensor<5x64xf32>
// FUSED: tensor.extract_slice %{{.+}}[{{.+}}, 0] [2, 64, 32] [1, 1, 1] : tensor<4x576x32xf32> to tensor<2x64x32xf32>
// FUSED: } {rlx.parallel}
// FUSED: tensor.extract_slice %arg0[{{.+}}] [1, 1, 2, 64] [1, 1, 2, 1] : tensor<?x6x6x64xf32> to tensor<2x64xf32>
// FUSED: } {rlx.parallel}
// FUSED: tensor.extract_slice %{{.+}}[{{.+}}] [64, 40] [1, 1] : tensor<576x40xf32> to tensor<64x40xf32>
// FUSED: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<{{[56]}}x64xf32>, tensor<64x40xf32>)
// FUSED-NOT: tensor<?x576xf32>
// RUN: rlxc %t.alldyn.mlir --compile-to=fuse | FileCheck %s --check-prefix=ALLDYN
// ALLDYN: tensor<?x576xf32>
