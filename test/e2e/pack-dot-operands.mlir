// Weights read prepacked by the CPU's matmul kernels (rlx-pack-dot-operands,
// rlx-prepare-params, rlx-cpu-dot-product-matmul, rlx-cpu-vectorize-matmul):
// a bf16 matmul, an int8 matmul, an im2col and a 1x1 int8 conv, an f32
// matmul and 1x1 conv by 2 MiB weights, and packed weights unpacked again,
// each compared exactly with plain loops
// (test/Inputs/packed_weights.py), with static shapes, one dynamic dim and
// every dim dynamic.
// RUN: mkdir -p %t.s %t.d %t.a
// RUN: python3 %inputs/packed_weights.py weights %t.w.safetensors

// RUN: python3 %inputs/packed_weights.py model static > %t.static.mlir
// RUN: python3 %inputs/packed_weights.py inputs %t.s 5 2 1
// RUN: rlxc %t.static.mlir -o %t.static.so
// RUN: rlx-run %t.static.so --weights %t.w.safetensors --input xf=%t.s/xf.npy --input xi=%t.s/xi.npy --input img=%t.s/img.npy --input xg=%t.s/xg.npy --input im=%t.s/im.npy --outputs %t.s/out.safetensors
// RUN: python3 %inputs/packed_weights.py check %t.s %t.s/out.safetensors | FileCheck %s

// RUN: python3 %inputs/packed_weights.py model dyn > %t.dyn.mlir
// RUN: python3 %inputs/packed_weights.py inputs %t.d 5 3 2
// RUN: rlxc %t.dyn.mlir -o %t.dyn.so
// RUN: rlx-run %t.dyn.so --weights %t.w.safetensors --input xf=%t.d/xf.npy --input xi=%t.d/xi.npy --input img=%t.d/img.npy --input xg=%t.d/xg.npy --input im=%t.d/im.npy --outputs %t.d/out.safetensors
// RUN: python3 %inputs/packed_weights.py check %t.d %t.d/out.safetensors | FileCheck %s

// 2 x 3600 rows of 37 bytes: the rows' int8 offsets are summed on every
// thread (from 256 KiB of A).
// RUN: python3 %inputs/packed_weights.py model alldyn > %t.alldyn.mlir
// RUN: python3 %inputs/packed_weights.py inputs %t.a 3600 2 3
// RUN: rlxc %t.alldyn.mlir -o %t.alldyn.so
// RUN: rlx-run %t.alldyn.so --weights %t.w.safetensors --input xf=%t.a/xf.npy --input xi=%t.a/xi.npy --input img=%t.a/img.npy --input xg=%t.a/xg.npy --input im=%t.a/im.npy --outputs %t.a/out.safetensors
// RUN: python3 %inputs/packed_weights.py check %t.a %t.a/out.safetensors | FileCheck %s

// The same model for a CPU without the int8 and bf16 kernels (only the
// f32 weights are prepacked): the same results.
// RUN: rlxc %t.static.mlir --cpu=x86-64-v3 -o %t.plain.so
// RUN: rlx-run %t.plain.so --weights %t.w.safetensors --input xf=%t.s/xf.npy --input xi=%t.s/xi.npy --input img=%t.s/img.npy --input xg=%t.s/xg.npy --input im=%t.s/im.npy --outputs %t.s/plain.safetensors
// RUN: python3 %inputs/packed_weights.py check %t.s %t.s/plain.safetensors | FileCheck %s

// CHECK: packed weights: all 9 outputs exact

// On a CPU with both kernels the six products read prepacked params, which
// the prepare entry packs; without them only the two f32 ones do, in
// panels as wide as AVX2's register tile (16 columns, 32 with AVX-512).
// RUN: rlxc %t.dyn.mlir --cpu=znver4 --compile-to=lower | FileCheck %s --check-prefix=LOWER
// LOWER: func.func @f(
// LOWER-COUNT-6: attrs =  {rlx.packed_rhs}
// LOWER: func.func @f__prepare_params
// RUN: rlxc %t.dyn.mlir --cpu=x86-64-v3 --compile-to=lower | FileCheck %s --check-prefix=V3
// V3: func.func @f(
// V3-COUNT-2: ins({{.*}}xf32>, {{.*}}x16xf32>) outs({{.*}}xf32>) attrs =  {rlx.packed_rhs}
// V3-NOT: rlx.packed_rhs
// V3: func.func @f__prepare_params
