// The AMX tiles reach LLVM for a CPU with AMX (compiled here whatever the
// machine; test/e2e/amx-matmuls.mlir runs them where the CPU has AMX):
// two bf16 products (tdpbf16ps) and two int8 ones (tdpbsud: A signed, B
// offset to unsigned), 4 multiplications per k step of a tile pair, 2 of
// a single tile; and none for a CPU without AMX.
// RUN: python3 %inputs/amx_matmuls.py model dyn > %t.mlir
// RUN: rlxc %t.mlir --cpu=sapphirerapids --emit=llvm -o - | FileCheck %s
// RUN: rlxc %t.mlir --cpu=znver4 --emit=llvm -o - | FileCheck %s --check-prefix=ZEN
// CHECK-DAG: call x86_amx @llvm.x86.tdpbf16ps.internal
// CHECK-DAG: call x86_amx @llvm.x86.tdpbsud.internal
// CHECK-DAG: call x86_amx @llvm.x86.tileloadd64.internal
// CHECK-DAG: call void @llvm.x86.tilestored64.internal
// ZEN-NOT: x86_amx
// ZEN: @llvm.x86.avx512bf16.dpbf16ps.512
