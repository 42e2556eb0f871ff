// An MX linear layer bound by name from safetensors: MXFP8 weights
// (F8_E4M3 codes) and MXFP4 weights (f4E2M1FN codes one per byte, U8), each
// with one F8_E8M0 scale per 32 rows, dequantized by rlx.block_dequantize
// and multiplied; compared with plain loops over the formats' definitions
// (test/Inputs/mx_weights.py), static and with a dynamic batch. The
// dequantized weights depend on weights alone: the artifact prepares them
// once per binding (below 2 MiB as f32; larger ones stay narrow and are
// decoded in the kernel: test/e2e/mx-codes.mlir).
// RUN: mkdir -p %t.s %t.d
// RUN: python3 %inputs/mx_weights.py weights %t.w.safetensors
// RUN: python3 %inputs/mx_weights.py model static > %t.static.mlir
// RUN: python3 %inputs/mx_weights.py inputs %t.s 3
// RUN: rlxc %t.static.mlir -o %t.static.so
// RUN: rlx-run %t.static.so --info | FileCheck %s --check-prefix=INFO
// INFO: weights it prepares once per binding
// INFO-DAG: w8: f8E4M3FN[64,24]
// INFO-DAG: w8_scales: f8E8M0FNU[2,24]
// RUN: rlx-run %t.static.so --weights %t.w.safetensors --input x=%t.s/x.npy --outputs %t.s/out.safetensors
// RUN: python3 %inputs/mx_weights.py check %t.s %t.s/out.safetensors | FileCheck %s
// RUN: python3 %inputs/mx_weights.py model dyn > %t.dyn.mlir
// RUN: python3 %inputs/mx_weights.py inputs %t.d 7
// RUN: rlxc %t.dyn.mlir -o %t.dyn.so
// RUN: rlx-run %t.dyn.so --weights %t.w.safetensors --input x=%t.d/x.npy --outputs %t.d/out.safetensors
// RUN: python3 %inputs/mx_weights.py check %t.d %t.d/out.safetensors | FileCheck %s
// CHECK: y: all {{[0-9]+}} values within the f32 sum bound
