// rlx-opt reproduces an rlxc compile for Vulkan: rlxc --compile-to=bufferize
// then rlx-opt's codegen phase with target=vulkan gives rlxc's module,
// SPIR-V and all, and the manifest names vulkan.
// RUN: rlxc %s --target=vulkan --grad=loss --compile-to=codegen -o %t.rlxc.mlir
// RUN: FileCheck %s < %t.rlxc.mlir
// CHECK-DAG: llvm.func @rlx_entry_loss_grad(
// CHECK-DAG: \22target\22:\22vulkan\22
// The device code is SPIR-V (its magic number, little-endian).
// CHECK-DAG: llvm.mlir.global internal constant @{{.+}}("spirv\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.+}}("\03\02#\07

// RUN: rlxc %s --target=vulkan --grad=loss --compile-to=bufferize -o %t.buf.mlir
// RUN: rlx-opt %t.buf.mlir --rlx-phase-codegen='target=vulkan' -o %t.from-buf.mlir
// RUN: diff %t.rlxc.mlir %t.from-buf.mlir
// The GPU fuse phase differs from the CPU's (no split reductions): split
// before it too, with the gradient added in rlx-opt.
// RUN: rlxc %s --target=vulkan --compile-to=import -o %t.import.mlir
// RUN: rlx-opt %t.import.mlir --pass-pipeline='builtin.module(rlx-phase-transform{grad=loss},rlx-phase-simplify,rlx-phase-lower{target=vulkan},rlx-phase-fuse{target=vulkan},rlx-phase-bufferize{target=vulkan},rlx-phase-codegen{target=vulkan})' -o %t.from-import.mlir
// RUN: diff %t.rlxc.mlir %t.from-import.mlir
func.func @loss(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<8x16xf32>
  %b = rlx.param "b" : tensor<16xf32>
  %m = rlx.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = rlx.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %t = rlx.tanh %a : tensor<4x16xf32>
  %s = rlx.sum %t {axes = array<i64: 0, 1>} : (tensor<4x16xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
