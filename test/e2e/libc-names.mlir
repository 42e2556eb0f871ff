// Model functions may share names with the C library the artifact links
// (exp, erf, free, malloc): their code gets reserved symbols and only the
// artifact ABI is exported.
// RUN: rlxc %s -o %t.so
// RUN: llvm-nm -D --defined-only %t.so | FileCheck %s --check-prefix=SYMS
// SYMS-NOT: {{ (exp|erf|free|malloc)$}}
// SYMS: rlx_artifact_abi_version
// SYMS: rlx_artifact_manifest
// SYMS: rlx_entry_erf
// SYMS: rlx_entry_free
// RUN: rlx-testdata npy %t.x.npy f32 4
// RUN: rlx-run %t.so --fn erf --input %t.x.npy | FileCheck %s --check-prefix=ERF
// ERF: out0: f32[4] = [-0.999978, -0.995322, -0.842701, 0]
// RUN: rlx-run %t.so --fn free --input %t.x.npy | FileCheck %s --check-prefix=FREE
// FREE: out0: f32[4] = [-6, -4, -2, 0]
func.func @erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = rlx.erf %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @free(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = rlx.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
