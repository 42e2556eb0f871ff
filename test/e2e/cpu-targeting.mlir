// The CPU an artifact is compiled for: rlxc --cpu (LLVM's names, host by
// default) and --cpu-features; the manifest records the triple, the CPU and
// the features the code needs. x86-64-v3 (AVX2) code runs on this machine;
// a CPU this machine is not is refused by the runtime before the first call
// (test/unittests/abi, CpuFeaturesThisMachineLacksAreRefused).
// RUN: rlxc %s --cpu=x86-64-v3 -o %t.v3.so
// RUN: rlx-testdata npy %t.x.npy f32 2,4
// RUN: rlx-run %t.v3.so --input x=%t.x.npy | FileCheck %s
// CHECK: out0: f32[2,4]
// RUN: rlx-run %t.v3.so --info | FileCheck %s --check-prefix=INFO
// INFO: cpu: x86-64-v3 (needs +sse,+sse2,{{.*}},+avx2,{{.*}}; this machine has them)
// RUN: rlxc %s --cpu=x86-64-v3 --compile-to=bufferize -o - | FileCheck %s --check-prefix=MANIFEST
// MANIFEST: \22cpu\22:\22x86-64-v3\22,\22cpu_features\22:[\22+sse\22,
// MANIFEST-SAME: \22+avx2\22
// MANIFEST-NOT: avx512
// MANIFEST-SAME: \22target_triple\22:\22x86_64-
// RUN: rlxc %s --cpu=x86-64-v3 --cpu-features=+avx512f --compile-to=bufferize -o - | FileCheck %s --check-prefix=PLUS
// PLUS: \22+avx512f\22
// The bufferized module keeps its CPU: codegen for another is refused.
// RUN: rlxc %s --cpu=x86-64-v3 --compile-to=bufferize -o %t.buf.mlir
// RUN: not rlx-opt %t.buf.mlir "--rlx-phase-codegen=cpu=skylake-avx512" 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: error: the module was prepared for CPU 'x86-64-v3' (its manifest) but codegen compiles for 'skylake-avx512'
// RUN: not rlxc %s --cpu=pentium9 -o %t.bad.so 2>&1 | FileCheck %s --check-prefix=BADCPU
// BADCPU: rlxc: error: unknown CPU 'pentium9' for x86_64-{{.*}} (LLVM's CPU names, e.g. x86-64-v3
// RUN: not rlxc %s --cpu-features=+avx9000 -o %t.bad.so 2>&1 | FileCheck %s --check-prefix=BADFEATURE
// BADFEATURE: rlxc: error: unknown CPU feature 'avx9000'
// RUN: not rlxc %s --cpu-features=avx2 -o %t.bad.so 2>&1 | FileCheck %s --check-prefix=NOSIGN
// NOSIGN: rlxc: error: CPU feature 'avx2' must start with + or -
func.func @f(%x: tensor<?x4xf32> {rlx.name = "x"}) -> tensor<?x4xf32> {
  %e = rlx.exp %x : tensor<?x4xf32>
  %s = rlx.add %e, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
