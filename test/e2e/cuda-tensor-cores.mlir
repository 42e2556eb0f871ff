// bf16 and f16 matmuls on CUDA's tensor cores (rlx-gpu-tensor-core-matmul):
// the whole pipeline down to PTX and cubins, which ptxas assembles for
// sm_80 and sm_90 (a compile fails if it does not). The numbers are checked
// on a GPU by the CudaBF16*/CudaF16* variants of the e2e op suite
// (bench/gpu_check.sh); here no GPU runs them.
// RUN: rm -rf %t && mkdir -p %t/dev %t/old
// RUN: rlxc %s --target=cuda --dump-device-code %t/dev -o %t/mm.so
// RUN: FileCheck %s --check-prefix=PTX < %t/dev/rlx_kernels.sm_80.ptx
// RUN: ls %t/dev | FileCheck %s --check-prefix=FILES
// FILES: rlx_kernels.sm_80.cubin
// FILES: rlx_kernels.sm_80.ptx
// FILES: rlx_kernels.sm_90.cubin

// 16 mmas per K step of 32 in each kernel: static odd sizes, f16 batched
// with a dynamic batch, every dim dynamic.
// PTX-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT: mma.sync

// A chip older than sm_80 has no m16n8k16 bf16/f16 mma: the loop mapping.
// RUN: rlxc %s --target=cuda --chips=sm_75 --dump-device-code %t/old -o %t/old.so
// RUN: FileCheck %s --check-prefix=OLD < %t/old/rlx_kernels.sm_75.ptx
// OLD-NOT: mma.sync
// OLD: .entry

// The artifact loads without a GPU and says so on a call.
// RUN: rlx-run %t/mm.so --info | FileCheck %s --check-prefix=INFO
// INFO: target: cuda
func.func @odd(%a: tensor<70x40xbf16>, %b: tensor<40x33xbf16>) -> tensor<70x33xbf16> {
  %c = rlx.matmul %a, %b : (tensor<70x40xbf16>, tensor<40x33xbf16>) -> tensor<70x33xbf16>
  return %c : tensor<70x33xbf16>
}
func.func @batched(%a: tensor<?x40x24xf16>, %b: tensor<?x24x72xf16>) -> tensor<?x40x72xf16> {
  %c = rlx.matmul %a, %b : (tensor<?x40x24xf16>, tensor<?x24x72xf16>) -> tensor<?x40x72xf16>
  return %c : tensor<?x40x72xf16>
}
func.func @dynamic(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %c = rlx.matmul %a, %b : (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
