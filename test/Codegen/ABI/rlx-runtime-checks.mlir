// RUN: rlx-opt %s -rlx-runtime-checks | FileCheck %s

// A cf.assert becomes a call of rlx_check_failed with its message when the
// condition is false (no abort()).
// CHECK: llvm.mlir.global private constant @rlx_check_message_0("model.mlir:3:8: reshape failed\00")
// CHECK: func.func private @rlx_check_failed(!llvm.ptr)
// CHECK-LABEL: func.func @f
// CHECK: %[[FAILED:.+]] = arith.xori %{{.+}}, %true
// CHECK: scf.if %[[FAILED]] {
// CHECK: %[[MSG:.+]] = llvm.mlir.addressof @rlx_check_message_0 : !llvm.ptr
// CHECK: func.call @rlx_check_failed(%[[MSG]]) : (!llvm.ptr) -> ()
// CHECK-NOT: cf.assert
func.func @f(%ok: i1) {
  cf.assert %ok, "model.mlir:3:8: reshape failed"
  return
}
