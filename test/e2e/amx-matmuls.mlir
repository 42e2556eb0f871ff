// bf16 and int8 matmuls on AMX tiles (rlx-cpu-dot-product-matmul on a CPU
// with AMX-BF16 and AMX-INT8): pairs of 16-row tiles, single ones and the
// rows beyond, whole k tiles with and without a tail, whole panels and a
// partial one, prepacked weights and activations packed per call; each
// compared exactly with plain loops (test/Inputs/amx_matmuls.py), with
// static shapes, one dynamic dim and every dim dynamic. The runs need a
// CPU with AMX; the code check below runs anywhere.
// REQUIRES: amx
// RUN: mkdir -p %t.s %t.d %t.a
// RUN: python3 %inputs/amx_matmuls.py weights %t.w.safetensors

// 2 x 57 rows: a block of 64 (two pairs) and one of 50 (a pair, a single
// tile, 2 rows on zmm registers).
// RUN: python3 %inputs/amx_matmuls.py model static > %t.static.mlir
// RUN: python3 %inputs/amx_matmuls.py inputs %t.s 2 57 1
// RUN: rlxc %t.static.mlir -o %t.static.so
// RUN: rlx-run %t.static.so --weights %t.w.safetensors --input x1=%t.s/x1.npy --input x2=%t.s/x2.npy --input x1i=%t.s/x1i.npy --input x2i=%t.s/x2i.npy --input b2=%t.s/b2.npy --input b8=%t.s/b8.npy --outputs %t.s/out.safetensors
// RUN: python3 %inputs/amx_matmuls.py check %t.s %t.s/out.safetensors | FileCheck %s

// 3 x 20 rows: one block of 60 (a pair, a single tile, 12 rows).
// RUN: python3 %inputs/amx_matmuls.py model dyn > %t.dyn.mlir
// RUN: python3 %inputs/amx_matmuls.py inputs %t.d 3 20 2
// RUN: rlxc %t.dyn.mlir -o %t.dyn.so
// RUN: rlx-run %t.dyn.so --weights %t.w.safetensors --input x1=%t.d/x1.npy --input x2=%t.d/x2.npy --input x1i=%t.d/x1i.npy --input x2i=%t.d/x2i.npy --input b2=%t.d/b2.npy --input b8=%t.d/b8.npy --outputs %t.d/out.safetensors
// RUN: python3 %inputs/amx_matmuls.py check %t.d %t.d/out.safetensors | FileCheck %s

// 1 x 16 rows: exactly one tile.
// RUN: python3 %inputs/amx_matmuls.py model alldyn > %t.alldyn.mlir
// RUN: python3 %inputs/amx_matmuls.py inputs %t.a 1 16 3
// RUN: rlxc %t.alldyn.mlir -o %t.alldyn.so
// RUN: rlx-run %t.alldyn.so --weights %t.w.safetensors --input x1=%t.a/x1.npy --input x2=%t.a/x2.npy --input x1i=%t.a/x1i.npy --input x2i=%t.a/x2i.npy --input b2=%t.a/b2.npy --input b8=%t.a/b8.npy --outputs %t.a/out.safetensors
// RUN: python3 %inputs/amx_matmuls.py check %t.a %t.a/out.safetensors | FileCheck %s

// Without AMX (the zmm kernels alone): the same results.
// RUN: rlxc %t.static.mlir --cpu-features=-amx-tile,-amx-bf16,-amx-int8 -o %t.zmm.so
// RUN: rlx-run %t.zmm.so --weights %t.w.safetensors --input x1=%t.s/x1.npy --input x2=%t.s/x2.npy --input x1i=%t.s/x1i.npy --input x2i=%t.s/x2i.npy --input b2=%t.s/b2.npy --input b8=%t.s/b8.npy --outputs %t.s/zmm.safetensors
// RUN: python3 %inputs/amx_matmuls.py check %t.s %t.s/zmm.safetensors | FileCheck %s

// CHECK: amx matmuls: all 4 outputs exact
