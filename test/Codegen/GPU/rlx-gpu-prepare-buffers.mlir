// RUN: rlx-opt %s -rlx-gpu-prepare-buffers | FileCheck %s

// A copy becomes linalg.copy (a kernel later); a constant is copied to a
// device buffer at entry (bytes = 6 x 4) that is freed at the return.
// CHECK-LABEL: func.func @entry
// CHECK: %[[G:.+]] = memref.get_global @table : memref<2x3xf32>
// CHECK: %[[D:.+]] = memref.alloc() : memref<2x3xf32>
// CHECK: %[[BYTES:.+]] = arith.constant 24 : i64
// CHECK: memref.extract_aligned_pointer_as_index %[[D]]
// CHECK: memref.extract_aligned_pointer_as_index %[[G]]
// CHECK: call @rlx_device_upload(%{{.+}}, %{{.+}}, %[[BYTES]]) : (i64, i64, i64) -> ()
// CHECK: linalg.copy ins(%[[D]] : memref<2x3xf32>) outs(%arg0 : memref<2x3xf32>)
// CHECK-NOT: memref.copy
// CHECK: memref.dealloc %[[D]]
// CHECK-NEXT: return
// CHECK: func.func private @rlx_device_upload(i64, i64, i64)
memref.global "private" constant @table : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
func.func @entry(%out: memref<2x3xf32>) {
  %g = memref.get_global @table : memref<2x3xf32>
  memref.copy %g, %out : memref<2x3xf32> to memref<2x3xf32>
  return
}
