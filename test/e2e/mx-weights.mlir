// An MX linear layer bound by name from safetensors: MXFP8 weights
// (F8_E4M3 codes) and MXFP4 weights (f4E2M1FN codes one per byte, U8), each
// with one F8_E8M0 scale per 32 rows, dequantized by rlx.block_dequantize
// and multiplied; compared with plain loops over the formats' definitions
// (test/Inputs/mx_weights.py), static and with a dynamic batch. The
// dequantized weights depend on weights alone: the artifact prepares them
// once per binding. With N a multiple of 32 the matmuls read the codes and
// scales packed, decoded panel by panel in the kernel (K = 96: one K block
// of three scale blocks; K = 256 with blocks of 48: a last short block,
// chunks of 16), with whole row tiles (16 rows), a partial one (3) and a
// dynamic batch.
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
// RUN: mkdir -p %t.p
// RUN: python3 %inputs/mx_weights.py --shape 96,64,32 weights %t.p.safetensors
// RUN: python3 %inputs/mx_weights.py --shape 96,64,32 model static 16 > %t.p16.mlir
// RUN: python3 %inputs/mx_weights.py --shape 96,64,32 inputs %t.p 16
// RUN: rlxc %t.p16.mlir -o %t.p16.so
// RUN: rlx-run %t.p16.so --weights %t.p.safetensors --input x=%t.p/x.npy --outputs %t.p/out.safetensors
// RUN: python3 %inputs/mx_weights.py --shape 96,64,32 check %t.p %t.p/out.safetensors | FileCheck %s
// RUN: python3 %inputs/mx_weights.py --shape 96,64,32 model dyn > %t.pd.mlir
// RUN: python3 %inputs/mx_weights.py --shape 96,64,32 inputs %t.p 7
// RUN: rlxc %t.pd.mlir -o %t.pd.so
// RUN: rlx-run %t.pd.so --weights %t.p.safetensors --input x=%t.p/x.npy --outputs %t.p/out.safetensors
// RUN: python3 %inputs/mx_weights.py --shape 96,64,32 check %t.p %t.p/out.safetensors | FileCheck %s
// RUN: mkdir -p %t.q
// RUN: python3 %inputs/mx_weights.py --shape 256,64,48 weights %t.q.safetensors
// RUN: python3 %inputs/mx_weights.py --shape 256,64,48 model static > %t.q3.mlir
// RUN: python3 %inputs/mx_weights.py --shape 256,64,48 inputs %t.q 3
// RUN: rlxc %t.q3.mlir -o %t.q3.so
// RUN: rlx-run %t.q3.so --weights %t.q.safetensors --input x=%t.q/x.npy --outputs %t.q/out.safetensors
// RUN: python3 %inputs/mx_weights.py --shape 256,64,48 check %t.q %t.q/out.safetensors | FileCheck %s
// The packed artifact's prepared params are the narrow codes and scales
// (on a CPU with AVX-512: the f32 kernel's panels).
// RUN: %if avx512 %{ rlxc %t.pd.mlir --compile-to lower --emit=mlir -o - | FileCheck %s --check-prefix=PACKED %}
// PACKED: tensor<2x96x32xf8E4M3FN> {rlx.param = "rlx.prepared/f/{{[0-9]+}}"}
// PACKED: tensor<2x96x32xi8> {rlx.param = "rlx.prepared/f/{{[0-9]+}}"}
// PACKED: attrs =  {rlx.packed_rhs, rlx.scale_block_size = 32 : i64}
// CHECK: y: all {{[0-9]+}} values within the f32 sum bound
