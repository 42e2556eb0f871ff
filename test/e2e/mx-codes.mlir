// Every finite code of f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f6E3M2FN,
// f6E2M3FN and f4E2M1FN as a block-scaled weight (one f8E8M0FNU scale per
// 32 rows) of an f32 matmul by the identity: the CPU kernel reads the codes
// and scales packed and decodes them (through f16 where f16 holds the
// format; the packing needs AVX-512), and the product, exact, must equal
// the formats' definitions (test/Inputs/mx_codes.py) bit for bit.
// RUN: mkdir -p %t.d
// RUN: python3 %inputs/mx_codes.py model > %t.mlir
// RUN: python3 %inputs/mx_codes.py weights %t.w.safetensors
// RUN: python3 %inputs/mx_codes.py inputs %t.d
// RUN: rlxc %t.mlir -o %t.so
// RUN: %if avx512 %{ rlxc %t.mlir --compile-to lower --emit=mlir -o - | FileCheck %s --check-prefix=PACKED %}
// RUN: rlx-run %t.so --weights %t.w.safetensors --input x=%t.d/x.npy --outputs %t.d/out.safetensors
// RUN: python3 %inputs/mx_codes.py check %t.d/out.safetensors | FileCheck %s
// PACKED-COUNT-7: rlx.scale_block_size = 32
// CHECK: f8E4M3FN: all 16384 values exact
// CHECK: f8E5M2: all 16384 values exact
// CHECK: f8E4M3FNUZ: all 16384 values exact
// CHECK: f8E5M2FNUZ: all 16384 values exact
// CHECK: f6E3M2FN: all 16384 values exact
// CHECK: f6E2M3FN: all 16384 values exact
// CHECK: f4E2M1FN: all 16384 values exact
