// Products whose bias, residual, activation and scale run per row tile of
// the product (rlx-cpu-fuse-matmul-epilogues): a 1x1 conv with bias,
// residual and relu, a 3x3 conv (im2col) with bias and relu, a dense layer
// with bias, relu and a scalar, a strided 3x3 conv alone (its im2col rows
// per tile too), and a 3x3 conv and a dense layer by weights the CPU
// prepacks (256 KiB or more: their row tiles read the panels), each
// compared exactly with plain loops
// (test/Inputs/matmul_epilogues.py), with static shapes, one dynamic dim
// and every dim dynamic; rows and columns are no multiples of the tiles.
// RUN: mkdir -p %t.s %t.d %t.a
// RUN: python3 %inputs/matmul_epilogues.py weights %t.w.safetensors

// RUN: python3 %inputs/matmul_epilogues.py model static > %t.static.mlir
// RUN: python3 %inputs/matmul_epilogues.py inputs %t.s 2 1
// RUN: rlxc %t.static.mlir -o %t.static.so
// RUN: rlx-run %t.static.so --weights %t.w.safetensors --input img=%t.s/img.npy --input res=%t.s/res.npy --input im8=%t.s/im8.npy --input x=%t.s/x.npy --input sm=%t.s/sm.npy --input xw=%t.s/xw.npy --outputs %t.s/out.safetensors
// RUN: python3 %inputs/matmul_epilogues.py check %t.s %t.s/out.safetensors | FileCheck %s

// RUN: python3 %inputs/matmul_epilogues.py model dyn > %t.dyn.mlir
// RUN: python3 %inputs/matmul_epilogues.py inputs %t.d 3 2
// RUN: rlxc %t.dyn.mlir -o %t.dyn.so
// RUN: rlx-run %t.dyn.so --weights %t.w.safetensors --input img=%t.d/img.npy --input res=%t.d/res.npy --input im8=%t.d/im8.npy --input x=%t.d/x.npy --input sm=%t.d/sm.npy --input xw=%t.d/xw.npy --outputs %t.d/out.safetensors
// RUN: python3 %inputs/matmul_epilogues.py check %t.d %t.d/out.safetensors | FileCheck %s

// 21 images: 525 and 1344 rows, forked over the threads.
// RUN: python3 %inputs/matmul_epilogues.py model alldyn > %t.alldyn.mlir
// RUN: python3 %inputs/matmul_epilogues.py inputs %t.a 21 3
// RUN: rlxc %t.alldyn.mlir -o %t.alldyn.so
// RUN: env RLX_NUM_THREADS=2 rlx-run %t.alldyn.so --weights %t.w.safetensors --input img=%t.a/img.npy --input res=%t.a/res.npy --input im8=%t.a/im8.npy --input x=%t.a/x.npy --input sm=%t.a/sm.npy --input xw=%t.a/xw.npy --outputs %t.a/out.safetensors
// RUN: python3 %inputs/matmul_epilogues.py check %t.a %t.a/out.safetensors | FileCheck %s
// AVX2's 6 x 16 register tiles in 12-row tiles (on AVX-512 hosts too).
// RUN: rlxc %t.alldyn.mlir --cpu=x86-64-v3 -o %t.v3.so
// RUN: env RLX_NUM_THREADS=2 rlx-run %t.v3.so --weights %t.w.safetensors --input img=%t.a/img.npy --input res=%t.a/res.npy --input im8=%t.a/im8.npy --input x=%t.a/x.npy --input sm=%t.a/sm.npy --input xw=%t.a/xw.npy --outputs %t.a/v3.safetensors
// RUN: python3 %inputs/matmul_epilogues.py check %t.a %t.a/v3.safetensors | FileCheck %s

// CHECK: matmul epilogues: all 6 outputs exact

// Each product is one loop of row tiles with its fill and epilogue, the
// prepacked ones (the last two) tiles of their rlx.packed_rhs generics.
// RUN: rlxc %t.dyn.mlir --compile-to=fuse | FileCheck %s --check-prefix=FUSED
// FUSED-COUNT-4: } {rlx.parallel}
// FUSED-COUNT-2: attrs =  {rlx.packed_rhs}
// FUSED-NEXT: ^bb0
// FUSED: } {rlx.parallel}
// FUSED-NOT: linalg.generic {{.*}} ins(%expanded
