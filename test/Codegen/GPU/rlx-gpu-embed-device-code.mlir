// RUN: rlx-opt %s -pass-pipeline='builtin.module(rlx-gpu-prepare-spirv,convert-gpu-to-spirv,spirv.module(spirv-update-vce),rlx-gpu-embed-device-code{target=vulkan})' | FileCheck %s

// The SPIR-V module is serialized into the exported table (module name,
// format, chip, bytes, size); the launch becomes a call with the grid, the
// block and (kind, value) words: a buffer (kind 0, its pointer) and an
// index (kind 1: 32-bit on Vulkan).
// CHECK-NOT: gpu.module
// CHECK-NOT: spirv.module
// CHECK-LABEL: func.func @entry
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK-DAG: %[[K0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[K1:.+]] = arith.constant 1 : i64
// CHECK: %[[WORDS:.+]] = memref.alloca() : memref<10xi64>
// CHECK: memref.store %[[K0]], %[[WORDS]][%c6{{.*}}]
// CHECK: memref.store %[[K1]], %[[WORDS]][%c8{{.*}}]
// CHECK: %[[COUNT:.+]] = arith.constant 2 : i64
// CHECK: call @rlx_device_launch(%{{.+}}, %{{.+}}, %{{.+}}, %[[COUNT]])
// CHECK: llvm.mlir.global internal constant @rlx_device_data_{{[0-9]+}}("kernels\00")
// CHECK: llvm.mlir.global internal constant @rlx_device_data_{{[0-9]+}}("spirv\00")
// CHECK: llvm.mlir.global external constant @rlx_artifact_device_binaries() {{.*}} : !llvm.array<1 x struct<(ptr, ptr, ptr, ptr, i64)>>
// CHECK: llvm.mlir.global external constant @rlx_artifact_device_binary_count(1 : i64)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%n] : memref<?xf32>
      memref.store %x, %a[%c0] : memref<?xf32>
      gpu.return
    }
  }
  func.func @entry(%a: memref<?xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%a : memref<?xf32>, %n : index)
    return
  }
}
