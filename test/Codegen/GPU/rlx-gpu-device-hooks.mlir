// RUN: rlx-opt %s -rlx-gpu-device-hooks | FileCheck %s

// Allocation, free, upload, download and launch call through the exported hooks the
// runtime sets; a missing hook aborts. The lowering's declarations give way.
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_device_alloc_hook()
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_device_free_hook()
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_device_upload_hook()
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_device_launch_hook()
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_device_download_hook()
// CHECK-LABEL: llvm.func @rlx_device_hook
// CHECK: llvm.call @abort
// CHECK-LABEL: llvm.func @_mlir_memref_to_llvm_alloc(%{{.+}}: i64) -> !llvm.ptr
// CHECK: llvm.mlir.addressof @rlx_artifact_device_alloc_hook
// CHECK: llvm.call %{{.+}}(%{{.+}}) : !llvm.ptr, (i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @_mlir_memref_to_llvm_free
// CHECK: llvm.mlir.addressof @rlx_artifact_device_free_hook
// CHECK-LABEL: llvm.func @rlx_device_download(%{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64)
// CHECK: llvm.mlir.addressof @rlx_artifact_device_download_hook
// CHECK: %[[HOST:.+]] = llvm.inttoptr %arg0 : i64 to !llvm.ptr
// CHECK: %[[DEVICE:.+]] = llvm.inttoptr %arg1 : i64 to !llvm.ptr
// CHECK: llvm.call %{{.+}}(%[[HOST]], %[[DEVICE]], %arg2) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK-LABEL: llvm.func @rlx_device_launch
// CHECK: llvm.getelementptr %{{.+}}[3]
// CHECK: llvm.getelementptr %{{.+}}[6]
// CHECK: llvm.call %{{.+}}(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
module {
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
  llvm.func @rlx_device_launch(i64, i64, i64, i64)
  llvm.func @rlx_device_download(i64, i64, i64)
  llvm.func @user(%n: i64) -> !llvm.ptr {
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    llvm.return %p : !llvm.ptr
  }
}
