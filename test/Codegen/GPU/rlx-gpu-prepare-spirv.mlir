// RUN: rlx-opt %s -rlx-gpu-prepare-spirv -split-input-file -verify-diagnostics | FileCheck %s

// The Vulkan target environment on the module, the launch's block size as
// the entry point's workgroup size, erf as a polynomial (no GLSL erf).
// CHECK-LABEL: gpu.module @kernels
// CHECK-SAME: spirv.target_env = #spirv.target_env<#spirv.vce<v1.3
// CHECK-SAME: api=Vulkan
// CHECK: gpu.func @k
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [128, 1, 1]>
// CHECK-NOT: math.erf
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<?xf32>
      %y = math.erf %x : f32
      memref.store %y, %a[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// 64-bit transcendental functions: refused at the op, naming it.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xf64>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<?xf64>
      // expected-error @+1 {{vulkan: math.exp on f64 has no SPIR-V lowering}}
      %y = math.exp %x : f64
      memref.store %y, %a[%c0] : memref<?xf64>
      gpu.return
    }
  }
}

// -----

// bf16 has no SPIR-V type.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xbf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{vulkan: bf16 has no SPIR-V type}}
      %x = memref.load %a[%c0] : memref<?xbf16>
      gpu.return
    }
  }
}

// -----

// SPIR-V fixes the workgroup size in the module: it must be a constant.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{vulkan: kernel without a constant block size}}
    gpu.func @k(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Workgroup attributions (the matmul's tiles) become allocations in the
// Workgroup storage class, which the SPIR-V conversion makes variables.
// CHECK-LABEL: gpu.func @tiles
// CHECK-NOT: workgroup(
// CHECK: %[[TILE:.+]] = memref.alloc() : memref<8x8xf32, #spirv.storage_class<Workgroup>>
// CHECK: memref.store %{{.+}}, %[[TILE]]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tiles(%a: memref<?xf32>) workgroup(%t : memref<8x8xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 8, 8, 1>} {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<?xf32>
      memref.store %x, %t[%c0, %c0] : memref<8x8xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
