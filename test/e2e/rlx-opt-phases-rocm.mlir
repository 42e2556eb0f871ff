// rlx-opt reproduces an rlxc compile for ROCm (Debian's rocm-device-libs, as in
// gpu-targets.mlir): rlxc --compile-to=bufferize then rlx-opt's codegen
// phase with target=rocm gives rlxc's module, hsaco included.
// RUN: rlxc %s --target=rocm --compile-to=codegen -o %t.rlxc.mlir
// RUN: FileCheck %s < %t.rlxc.mlir
// CHECK-DAG: llvm.func @rlx_entry_forward(
// CHECK-DAG: \22target\22:\22rocm\22
// CHECK-DAG: llvm.mlir.global internal constant @{{.+}}("hsaco\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.+}}("gfx90a\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.+}}("gfx942\00")

// RUN: rlxc %s --target=rocm --compile-to=bufferize -o %t.buf.mlir
// RUN: rlx-opt %t.buf.mlir --rlx-phase-codegen='target=rocm' -o %t.from-buf.mlir
// RUN: diff %t.rlxc.mlir %t.from-buf.mlir

// The chips are an option of both: one hsaco, for gfx942 only.
// RUN: rlxc %s --target=rocm --chips=gfx942 --compile-to=codegen -o %t.gfx942.mlir
// RUN: rlx-opt %t.buf.mlir --pass-pipeline='builtin.module(rlx-phase-codegen{target=rocm chips=gfx942})' -o %t.gfx942-opt.mlir
// RUN: diff %t.gfx942.mlir %t.gfx942-opt.mlir
// RUN: FileCheck %s --check-prefix=GFX942 < %t.gfx942.mlir
// GFX942-NOT: "gfx90a\00"
// GFX942: llvm.mlir.global internal constant @{{.+}}("gfx942\00")
// GFX942-NOT: "gfx90a\00"
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = rlx.param "w" : tensor<8x16xf32>
  %b = rlx.param "b" : tensor<16xf32>
  %m = rlx.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = rlx.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %t = rlx.tanh %a : tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}
