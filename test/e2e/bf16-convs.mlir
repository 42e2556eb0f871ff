// bf16 convolutions summed in f32 (rlx.conv2d of two widened bf16 values,
// rlx-accumulate-in-f32's form of a bf16 conv), one per lowering: im2col (3x3
// stride 2 into 40 filters, a dilated 3x3, a 1x1 stride 2, a 3x3 stride 3 of 3
// channels: K = 27, odd, 18 rows in 6-row tiles when static), pointwise (1x1
// by a 40 x 24 filter reading the first conv's result rounded to bf16) and
// grouped, compared exactly with plain loops (test/Inputs/bf16_convs.py), with
// static shapes, a dynamic batch and every dim dynamic.
// RUN: python3 %inputs/bf16_convs.py weights %t.w.safetensors
// RUN: python3 %inputs/bf16_convs.py input %t.x.npy 2 9 8 1
// RUN: python3 %inputs/bf16_convs.py input %t.s.npy 2 9 3 2
// RUN: python3 %inputs/bf16_convs.py input %t.x3.npy 3 9 8 3
// RUN: python3 %inputs/bf16_convs.py input %t.s3.npy 3 9 3 4

// RUN: python3 %inputs/bf16_convs.py model static > %t.static.mlir
// RUN: rlxc %t.static.mlir -o %t.static.so
// RUN: rlx-run %t.static.so --weights %t.w.safetensors --input x=%t.x.npy --input s=%t.s.npy --outputs %t.out1.safetensors
// RUN: python3 %inputs/bf16_convs.py check %t.x.npy %t.s.npy %t.out1.safetensors | FileCheck %s

// RUN: python3 %inputs/bf16_convs.py model dyn > %t.dyn.mlir
// RUN: rlxc %t.dyn.mlir -o %t.dyn.so
// RUN: rlx-run %t.dyn.so --weights %t.w.safetensors --input x=%t.x3.npy --input s=%t.s3.npy --outputs %t.out2.safetensors
// RUN: python3 %inputs/bf16_convs.py check %t.x3.npy %t.s3.npy %t.out2.safetensors | FileCheck %s

// RUN: python3 %inputs/bf16_convs.py model alldyn > %t.alldyn.mlir
// RUN: rlxc %t.alldyn.mlir -o %t.alldyn.so
// RUN: rlx-run %t.alldyn.so --weights %t.w.safetensors --input x=%t.x3.npy --input s=%t.s3.npy --outputs %t.out3.safetensors
// RUN: python3 %inputs/bf16_convs.py check %t.x3.npy %t.s3.npy %t.out3.safetensors | FileCheck %s

// A CPU without AVX512-BF16 (bf16 widened to f32 for the f32 kernel) and
// one with it and AMX (Sapphire Rapids: compiled, not run here) agree.
// RUN: rlxc %t.alldyn.mlir --cpu=x86-64-v3 -o %t.v3.so
// RUN: rlx-run %t.v3.so --weights %t.w.safetensors --input x=%t.x.npy --input s=%t.s.npy --outputs %t.out4.safetensors
// RUN: python3 %inputs/bf16_convs.py check %t.x.npy %t.s.npy %t.out4.safetensors | FileCheck %s
// RUN: rlxc %t.alldyn.mlir --cpu=sapphirerapids -o %t.spr.so

// CHECK: bf16 convs: all 6 outputs exact

// On a CPU with AVX512-BF16 the single-group convs copy bf16 windows and
// multiply bf16 values, reading their filters prepacked; the grouped one
// is an f32 contraction.
// RUN: rlxc %t.dyn.mlir --cpu=znver4 --compile-to=lower | FileCheck %s --check-prefix=LOWER
// LOWER: func.func @f(
// LOWER-COUNT-4: ins({{.*}}xbf16>, {{.*}}xbf16>) outs({{.*}}xf32>) attrs =  {rlx.packed_rhs}
// LOWER: ins({{.*}}x2x4xf32>, {{.*}}xf32>) outs({{.*}}xf32>) {
// LOWER: ins({{.*}}x27xbf16>, {{.*}}xbf16>) outs({{.*}}xf32>) attrs =  {rlx.packed_rhs}
// LOWER: func.func @f__prepare_params
