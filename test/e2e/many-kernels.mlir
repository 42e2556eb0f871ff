// A model of 160 loop nests: in a function this long each nest moves into
// a never-inlined function of its own (rlx-cpu-outline-kernels), which keeps
// LLVM's compile time linear, and the values are those of a plain loop.
// RUN: python3 %inputs/kernel_chain.py model 40 > %t.mlir
// RUN: rlxc %t.mlir -o %t.so --mlir-print-ir-after=rlx-cpu-outline-kernels 2>&1 | FileCheck %s
// CHECK: func.func private @rlx_impl_chain_kernel0(
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: func.func private @rlx_impl_chain_kernel159(
// RUN: rlx-testdata npy %t.x.npy f32 4,16
// RUN: rlx-run %t.so --input x=%t.x.npy --output %t.y.npy
// RUN: python3 %inputs/kernel_chain.py check 40 %t.x.npy %t.y.npy
