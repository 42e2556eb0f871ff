// Every finite code of f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f6E3M2FN,
// f6E2M3FN, f4E2M1FN, i4 and i8 (MXINT8) as a block-scaled weight (1152 x 512: 2 MiB as
// f32, kept narrow) of an f32 matmul by the identity, so the product is the
// dequantized weight: the CPU kernel reads the codes and scales packed and
// decodes them (through f16 where f16 holds the format), and the product,
// exact, must equal the formats' definitions (test/Inputs/mx_codes.py) bit
// for bit. Whole row tiles (1152 rows, the packed-A loops) with a scale per
// 32 rows; a dynamic batch of 7 rows (the panel loops) with a scale per 40
// rows (the last block 32 rows; decoded in chunks of 8, the gcd with the
// K block of 128), and the same model run with 1 and 2 rows, where each
// weight is decoded in the product (a GEMV: sums of the codes' values per
// chunk of 8, then scaled). Row 0 holds every code of the 8-bit formats
// (each column's codes are rotated by its index). The packed layout needs AVX-512 (the f32 kernel's
// 32-column panels); elsewhere the weights are prepared in f32.
// RUN: mkdir -p %t.s %t.d
// RUN: python3 %inputs/mx_codes.py model static > %t.s.mlir
// RUN: python3 %inputs/mx_codes.py weights %t.s.safetensors
// RUN: python3 %inputs/mx_codes.py inputs %t.s 1152
// RUN: rlxc %t.s.mlir -o %t.s.so
// RUN: %if avx512 %{ rlxc %t.s.mlir --compile-to lower --emit=mlir -o - | FileCheck %s --check-prefix=PACKED %}
// RUN: rlxc %t.s.mlir --cpu=x86-64-v3 --compile-to lower --emit=mlir -o - | FileCheck %s --check-prefix=PANELS16
// RUN: rlx-run %t.s.so --weights %t.s.safetensors --input x=%t.s/x.npy --outputs %t.s/out.safetensors
// RUN: python3 %inputs/mx_codes.py check 1152 %t.s/out.safetensors | FileCheck %s
// RUN: python3 %inputs/mx_codes.py --block 40 model dyn > %t.d.mlir
// RUN: python3 %inputs/mx_codes.py --block 40 weights %t.d.safetensors
// RUN: python3 %inputs/mx_codes.py inputs %t.d 7
// RUN: rlxc %t.d.mlir -o %t.d.so
// RUN: %if avx512 %{ rlxc %t.d.mlir --compile-to lower --emit=mlir -o - | FileCheck %s --check-prefix=PACKED40 %}
// RUN: rlx-run %t.d.so --weights %t.d.safetensors --input x=%t.d/x.npy --outputs %t.d/out.safetensors
// RUN: python3 %inputs/mx_codes.py --block 40 check 7 %t.d/out.safetensors | FileCheck %s
// RUN: mkdir -p %t.d1 %t.d2
// RUN: python3 %inputs/mx_codes.py inputs %t.d1 1
// RUN: rlx-run %t.d.so --weights %t.d.safetensors --input x=%t.d1/x.npy --outputs %t.d1/out.safetensors
// RUN: python3 %inputs/mx_codes.py --block 40 check 1 %t.d1/out.safetensors | FileCheck %s
// RUN: python3 %inputs/mx_codes.py inputs %t.d2 2
// RUN: rlx-run %t.d.so --weights %t.d.safetensors --input x=%t.d2/x.npy --outputs %t.d2/out.safetensors
// RUN: python3 %inputs/mx_codes.py --block 40 check 2 %t.d2/out.safetensors | FileCheck %s
// PACKED-COUNT-9: rlx.scale_block_size = 32
// PACKED40-COUNT-9: rlx.scale_block_size = 40
// For AVX2 the codes and scales are packed in 16-column panels, its
// register tile's width.
// PANELS16: func.func @f({{.+}}tensor<32x36x16xf8E8M0FNU>{{.+}}tensor<32x1152x16xf8E4M3FN>
// PANELS16-COUNT-9: rlx.scale_block_size = 32
// CHECK: f8E4M3FN: all {{[0-9]+}} values exact
// CHECK: f8E5M2: all {{[0-9]+}} values exact
// CHECK: f8E4M3FNUZ: all {{[0-9]+}} values exact
// CHECK: f8E5M2FNUZ: all {{[0-9]+}} values exact
// CHECK: f6E3M2FN: all {{[0-9]+}} values exact
// CHECK: f6E2M3FN: all {{[0-9]+}} values exact
// CHECK: f4E2M1FN: all {{[0-9]+}} values exact
// CHECK: i4: all {{[0-9]+}} values exact
// CHECK: i8: all {{[0-9]+}} values exact
