// rlx-opt reproduces an rlxc compile for the CPU: rlxc stopped after any
// phase, then the remaining phases as rlx-opt pipelines with the options
// rlxc took (here --value-and-grad), give rlxc's module exactly.
// RUN: rlxc %s --value-and-grad=loss --compile-to=codegen -o %t.rlxc.mlir
// RUN: FileCheck %s < %t.rlxc.mlir
// CHECK-DAG: llvm.func @rlx_entry_loss_value_and_grad(
// CHECK-DAG: \22target\22:\22cpu\22

// The gradient entry point comes from the transform phase's options.
// RUN: rlxc %s --compile-to=import -o %t.import.mlir
// RUN: rlx-opt %t.import.mlir --pass-pipeline='builtin.module(rlx-phase-transform{value-and-grad=loss},rlx-phase-simplify,rlx-phase-lower,rlx-phase-fuse,rlx-phase-bufferize,rlx-phase-codegen)' -o %t.from-import.mlir
// RUN: diff %t.rlxc.mlir %t.from-import.mlir
// RUN: rlx-opt %t.import.mlir --rlx-phase-transform='value-and-grad=loss' | FileCheck %s --check-prefix=VG
// VG: func.func @loss_value_and_grad(
// RUN: rlx-opt %t.import.mlir --rlx-phase-transform | FileCheck %s --check-prefix=NOVG
// NOVG-NOT: loss_value_and_grad

// Split after bufferize, and every phase in one pipeline.
// RUN: rlxc %s --value-and-grad=loss --compile-to=bufferize -o %t.buf.mlir
// RUN: rlx-opt %t.buf.mlir --rlx-phase-codegen='target=cpu' -o %t.from-buf.mlir
// RUN: diff %t.rlxc.mlir %t.from-buf.mlir
// RUN: rlx-opt %s --rlx-phase-all='value-and-grad=loss' -o %t.all.mlir
// RUN: diff %t.rlxc.mlir %t.all.mlir

// Options that build no pipeline are refused, naming the pipeline.
// RUN: not rlx-opt %s --rlx-phase-codegen='target=metal' 2>&1 | FileCheck %s --check-prefix=METAL
// METAL: rlx-phase-codegen: unknown target 'metal'; targets: cpu, cuda, rocm, vulkan
// RUN: not rlx-opt %s --pass-pipeline='builtin.module(rlx-phase-all{chips=sm_90})' 2>&1 | FileCheck %s --check-prefix=CHIPS
// CHIPS: rlx-phase-all: chips are for the cuda and rocm targets, not cpu
// RUN: not rlxc %s --chips=sm_90 2>&1 | FileCheck %s --check-prefix=RLXC-CHIPS
// RLXC-CHIPS: rlxc: error: chips are for the cuda and rocm targets, not cpu
func.func @loss(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<8x16xf32>
  %b = rlx.param "b" : tensor<16xf32>
  %m = rlx.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = rlx.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %t = rlx.tanh %a : tensor<4x16xf32>
  %s = rlx.sum %t {axes = array<i64: 0, 1>} : (tensor<4x16xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
