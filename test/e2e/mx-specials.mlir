// The NaN and inf codes of f8E4M3FN, f8E5M2, f8E4M3FNUZ and f8E5M2FNUZ in
// a block-scaled weight (1152 x 512: 2 MiB as f32, kept narrow and decoded
// in the CPU kernel), each alone among codes of 1.0 in its column: ones @ W
// must be that NaN or inf in exactly those columns and finite elsewhere
// (test/Inputs/mx_specials.py). One row (each weight decoded in the
// product: the decoding through f16 turns the format's specials into
// f16's), and a dynamic batch of 1 and 7 rows (7: the buffered decode of
// each K block).
// RUN: mkdir -p %t.1 %t.d1 %t.d7
// RUN: python3 %inputs/mx_specials.py weights %t.safetensors
// RUN: python3 %inputs/mx_specials.py model static > %t.one.mlir
// RUN: python3 %inputs/mx_specials.py model dyn > %t.dyn.mlir
// RUN: rlxc %t.one.mlir -o %t.one.so
// RUN: rlxc %t.dyn.mlir -o %t.dyn.so
// RUN: %if avx512 %{ rlxc %t.dyn.mlir --compile-to lower --emit=mlir -o - | FileCheck %s --check-prefix=PACKED %}
// RUN: python3 %inputs/mx_specials.py inputs %t.1 1
// RUN: rlx-run %t.one.so --weights %t.safetensors --input x=%t.1/x.npy --outputs %t.1/out.safetensors
// RUN: python3 %inputs/mx_specials.py check 1 %t.1/out.safetensors | FileCheck %s
// RUN: python3 %inputs/mx_specials.py inputs %t.d1 1
// RUN: rlx-run %t.dyn.so --weights %t.safetensors --input x=%t.d1/x.npy --outputs %t.d1/out.safetensors
// RUN: python3 %inputs/mx_specials.py check 1 %t.d1/out.safetensors | FileCheck %s
// RUN: python3 %inputs/mx_specials.py inputs %t.d7 7
// RUN: rlx-run %t.dyn.so --weights %t.safetensors --input x=%t.d7/x.npy --outputs %t.d7/out.safetensors
// RUN: python3 %inputs/mx_specials.py check 7 %t.d7/out.safetensors | FileCheck %s
// PACKED-COUNT-4: rlx.scale_block_size = 32
// CHECK: f8E4M3FN: all 512 columns right
// CHECK: f8E5M2: all 512 columns right
// CHECK: f8E4M3FNUZ: all 512 columns right
// CHECK: f8E5M2FNUZ: all 512 columns right
