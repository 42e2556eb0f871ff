// --compile-to stops after a phase and prints MLIR; --emit picks the
// artifact kind; --version names the compiler.
// RUN: rlxc %s --compile-to=lower | FileCheck %s --check-prefix=LOWER
// LOWER: func.func @f(%{{.+}}: tensor<4xf32>, %{{.+}}: tensor<4xf32> {rlx.param = "w"})
// LOWER: linalg.generic
// RUN: rlxc %s --compile-to=bufferize | FileCheck %s --check-prefix=BUF
// BUF: rlx.manifest
// BUF: memref<4xf32>
// RUN: rlxc %s --emit=llvm -O3 | FileCheck %s --check-prefix=LLVM
// LLVM: define {{.*}}i32 @rlx_entry_f(ptr
// RUN: rlxc %s --emit=obj -o %t.o && test -s %t.o
// RUN: rlxc --version | FileCheck %s --check-prefix=VERSION
// VERSION: rlxc 0.1.0
// RUN: not rlxc %s --compile-to=nowhere 2>&1 | FileCheck %s --check-prefix=PHASE
// PHASE: rlxc: error: unknown phase 'nowhere'
// RUN: not rlxc %s -o %s 2>&1 | FileCheck %s --check-prefix=SELF
// SELF: would overwrite the input
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = rlx.param "w" : tensor<4xf32>
  %0 = rlx.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
