// A bf16 transpose through rlxc reads its columns lane by lane into i16
// vectors only (rlx-cpu-move-half-floats-as-i16): each bfloat insert would
// cost a call of __truncsfbf2 on x86 without AVX512-BF16.
// RUN: rlxc %s --cpu=znver3 --emit=llvm -o - | FileCheck %s --check-prefix=RLXC
// RLXC-LABEL: define {{.*}}@rlx_impl_transpose_bf16
// RLXC: insertelement <{{[0-9]+}} x i16>
// RLXC-NOT: insertelement <{{[0-9]+}} x bfloat>
func.func @transpose_bf16(%x: tensor<64x48xbf16>) -> tensor<48x64xbf16> {
  %r = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<64x48xbf16>) -> tensor<48x64xbf16>
  return %r : tensor<48x64xbf16>
}
