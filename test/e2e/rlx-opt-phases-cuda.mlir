// rlx-opt reproduces an rlxc compile for CUDA (ptxas from the toolkit, as in
// gpu-targets.mlir): rlxc --compile-to=bufferize then rlx-opt's codegen
// phase with target=cuda gives rlxc's module, PTX and cubins included.
// RUN: rlxc %s --target=cuda --compile-to=codegen -o %t.rlxc.mlir
// RUN: FileCheck %s < %t.rlxc.mlir
// CHECK-DAG: llvm.func @rlx_entry_forward(
// CHECK-DAG: \22target\22:\22cuda\22
// CHECK-DAG: llvm.mlir.global internal constant @{{.+}}("ptx\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.+}}("cubin\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.+}}("sm_80\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.+}}("sm_90\00")

// RUN: rlxc %s --target=cuda --compile-to=bufferize -o %t.buf.mlir
// RUN: rlx-opt %t.buf.mlir --rlx-phase-codegen='target=cuda' -o %t.from-buf.mlir
// RUN: diff %t.rlxc.mlir %t.from-buf.mlir

// The chips are an option of both: one cubin, for sm_90 only.
// RUN: rlxc %s --target=cuda --chips=sm_90 --compile-to=codegen -o %t.sm90.mlir
// RUN: rlx-opt %t.buf.mlir --pass-pipeline='builtin.module(rlx-phase-codegen{target=cuda chips=sm_90})' -o %t.sm90-opt.mlir
// RUN: diff %t.sm90.mlir %t.sm90-opt.mlir
// RUN: FileCheck %s --check-prefix=SM90 < %t.sm90.mlir
// SM90-NOT: "sm_80\00"
// SM90: llvm.mlir.global internal constant @{{.+}}("sm_90\00")
// SM90-NOT: "sm_80\00"
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = rlx.param "w" : tensor<8x16xf32>
  %b = rlx.param "b" : tensor<16xf32>
  %m = rlx.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = rlx.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %t = rlx.tanh %a : tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}
