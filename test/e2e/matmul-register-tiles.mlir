// The CPU matmul's register tile follows the target CPU (rlxc --cpu): 8 x 32
// on AVX-512 (each row two zmm vectors), 6 x 16 on AVX2, whose 16 ymm
// registers would spill an 8 x 32 tile at every k. The AVX2 code runs on
// any machine that has AVX2; its products are compared exactly with plain
// loops (test/Inputs/register_tiles.py), static rows and dynamic.
// RUN: python3 %inputs/register_tiles.py model static > %t.static.mlir
// RUN: python3 %inputs/register_tiles.py model dyn > %t.dyn.mlir
// RUN: rlxc %t.static.mlir --cpu=znver4 --emit=llvm -o - | FileCheck %s --check-prefix=AVX512
// AVX512: @llvm.fmuladd.v32f32(
// RUN: rlxc %t.static.mlir --cpu=x86-64-v3 --emit=llvm -o - | FileCheck %s --check-prefix=AVX2
// AVX2-NOT: fmuladd.v32f32
// AVX2: @llvm.fmuladd.v16f32(
// AVX2-NOT: fmuladd.v32f32
// RUN: mkdir -p %t.s %t.d
// RUN: python3 %inputs/register_tiles.py inputs %t.s 14 1
// RUN: rlxc %t.static.mlir --cpu=x86-64-v3 -o %t.static.so
// RUN: rlx-run %t.static.so --input a=%t.s/a.npy --input b=%t.s/b.npy --input x=%t.s/x.npy --input w=%t.s/w.npy --outputs %t.s/out.safetensors
// RUN: python3 %inputs/register_tiles.py check %t.s %t.s/out.safetensors | FileCheck %s
// RUN: python3 %inputs/register_tiles.py inputs %t.d 9 2
// RUN: rlxc %t.dyn.mlir --cpu=x86-64-v3 -o %t.dyn.so
// RUN: rlx-run %t.dyn.so --input a=%t.d/a.npy --input b=%t.d/b.npy --input x=%t.d/x.npy --input w=%t.d/w.npy --outputs %t.d/out.safetensors
// RUN: python3 %inputs/register_tiles.py check %t.d %t.d/out.safetensors | FileCheck %s
// CHECK: register tiles: all 2 outputs exact

// AVX-512's tall tiles (14 x 32) where one block of A is read in place and
// B's panels stream from L2: taken for such a CPU (Sapphire Rapids, any
// x86-64-v4) but not for Zen 4, which splits each 512-bit op in halves,
// nor Zen 5, which ran ResNet-50 slower with them; then run on this one,
// as it is (tall tiles where it has AVX-512 and is no Zen 4 or 5) and for
// x86-64-v4 where it has AVX-512 (tall tiles on any), and compared exactly
// with plain loops.
// RUN: python3 %inputs/register_tiles.py tall-model > %t.tall.mlir
// RUN: rlxc %t.tall.mlir --cpu=sapphirerapids --emit=mlir -o /dev/null --mlir-print-ir-after=rlx-cpu-vectorize-matmul 2>&1 | FileCheck %s --check-prefix=TALL
// RUN: rlxc %t.tall.mlir --cpu=x86-64-v4 --emit=mlir -o /dev/null --mlir-print-ir-after=rlx-cpu-vectorize-matmul 2>&1 | FileCheck %s --check-prefix=TALL
// TALL: vector<14x32xf32>
// RUN: rlxc %t.tall.mlir --cpu=x86-64-v3 --emit=mlir -o /dev/null --mlir-print-ir-after=rlx-cpu-vectorize-matmul 2>&1 | FileCheck %s --check-prefix=NOTALL
// RUN: rlxc %t.tall.mlir --cpu=znver4 --emit=mlir -o /dev/null --mlir-print-ir-after=rlx-cpu-vectorize-matmul 2>&1 | FileCheck %s --check-prefixes=NOTALL,ZMM
// RUN: rlxc %t.tall.mlir --cpu=znver5 --emit=mlir -o /dev/null --mlir-print-ir-after=rlx-cpu-vectorize-matmul 2>&1 | FileCheck %s --check-prefixes=NOTALL,ZMM
// NOTALL-NOT: vector<14x
// ZMM: vector<8x32xf32>
// NOTALL-NOT: vector<14x
// RUN: mkdir -p %t.t
// RUN: python3 %inputs/register_tiles.py tall-inputs %t.t 3
// RUN: rlxc %t.tall.mlir -o %t.tall.so
// RUN: rlx-run %t.tall.so --input a=%t.t/a.npy --input x=%t.t/x.npy --input b=%t.t/b.npy --outputs %t.t/out.safetensors
// RUN: python3 %inputs/register_tiles.py tall-check %t.t %t.t/out.safetensors | FileCheck %s --check-prefix=TALLOUT
// RUN: %if avx512 %{ rlxc %t.tall.mlir --cpu=x86-64-v4 -o %t.tall4.so %}
// RUN: %if avx512 %{ rlx-run %t.tall4.so --input a=%t.t/a.npy --input x=%t.t/x.npy --input b=%t.t/b.npy --outputs %t.t/out4.safetensors %}
// RUN: %if avx512 %{ python3 %inputs/register_tiles.py tall-check %t.t %t.t/out4.safetensors | FileCheck %s --check-prefix=TALLOUT %}
// TALLOUT: tall register tiles: all 2 outputs exact
