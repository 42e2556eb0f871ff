// RUN: rlx-opt %s -rlx-gpu-merge-modules | FileCheck %s

// Two outlined modules with same-named kernels become one module whose
// kernels are named after their old modules; the launches follow.
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @rlx_kernels::@f_kernel
// CHECK: gpu.launch_func @rlx_kernels::@f_kernel_0
// CHECK: gpu.module @rlx_kernels
// CHECK: gpu.func @f_kernel(
// CHECK: gpu.func @f_kernel_0(
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @f(%a: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @f_kernel_0 {
    gpu.func @f_kernel(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
}
