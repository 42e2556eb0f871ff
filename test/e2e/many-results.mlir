// An entry point of 300 results and a prepare entry of 300 prepared
// weights: each stores its results as it makes them (rlx-store-results-early;
// a returned struct of 300 descriptors took LLVM minutes), and every output
// is that of a plain loop.
// RUN: python3 %inputs/many_results.py model 300 > %t.mlir
// RUN: python3 %inputs/many_results.py weights 300 %t.safetensors
// RUN: rlxc %t.mlir -o %t.so --mlir-print-ir-after=rlx-store-results-early 2>&1 | FileCheck %s
// CHECK: llvm.func @rlx_impl_f(%{{.+}}: !llvm.ptr,
// CHECK: llvm.func @rlx_impl_f__prepare_params(%{{.+}}: !llvm.ptr,
// RUN: rlx-testdata npy %t.x.npy f32 2,3
// RUN: rlx-run %t.so --weights %t.safetensors --input x=%t.x.npy --outputs %t.out.safetensors
// RUN: python3 %inputs/many_results.py check 300 %t.x.npy %t.out.safetensors
