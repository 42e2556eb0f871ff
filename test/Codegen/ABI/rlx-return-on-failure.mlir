// RUN: rlx-opt %s -split-input-file -rlx-return-on-failure | FileCheck %s
// The OpenMP case must still translate to LLVM IR (a loop body with two
// exits, a parallel region asked after).
// RUN: rlx-opt %s -split-input-file -rlx-return-on-failure | mlir-translate --mlir-to-llvmir --split-input-file >/dev/null
// RUN: rlx-opt %s -split-input-file -rlx-return-on-failure=host-allocations=false | FileCheck %s --check-prefix=DEVICE

// A host allocation takes the call's state, fetched once at the entry; a
// null block returns zeros at once; frees go through the runtime too.
// CHECK-LABEL: llvm.func @allocates(
// CHECK: %[[STATE:.+]] = llvm.call @rlx_call_state() : () -> !llvm.ptr
// CHECK: %[[ALIGN:.+]] = llvm.mlir.constant(16 : i64) : i64
// CHECK: %[[P:.+]] = llvm.call @rlx_alloc(%[[STATE]], %{{.+}}, %[[ALIGN]])
// CHECK: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[FAILED:.+]] = llvm.icmp "eq" %[[P]], %[[NULL]]
// CHECK: llvm.cond_br %[[FAILED]], ^[[EXIT:.+]], ^[[REST:.+]]
// CHECK: ^[[REST]]:
// CHECK: llvm.call @rlx_alloc(%[[STATE]], %{{.+}}, %{{.+}})
// CHECK: llvm.call @rlx_free(%[[STATE]], %[[P]])
// CHECK: ^[[EXIT]]:
// CHECK: %[[ZERO:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: llvm.return %[[ZERO]] : !llvm.ptr
// The helpers are defined over the exported slots.
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_call_hook()
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_alloc_hook()
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_free_hook()
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_error_hook()
// CHECK-DAG: llvm.mlir.global external @rlx_artifact_failed_hook()
// CHECK-DAG: llvm.func @rlx_alloc(%{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64) -> !llvm.ptr {
// CHECK-DAG: llvm.func @rlx_check_failed(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr) {
// On a GPU target the allocations are the device hooks': left alone, and
// the state asked after each.
// DEVICE-LABEL: llvm.func @allocates(
// DEVICE: %[[STATE:.+]] = llvm.call @rlx_call_state()
// DEVICE: llvm.call @_mlir_memref_to_llvm_alloc(
// DEVICE-NEXT: %[[FAILED:.+]] = llvm.call @rlx_call_failed(%[[STATE]])
// DEVICE-NEXT: llvm.cond_br %[[FAILED]]
// DEVICE: llvm.call @_mlir_memref_to_llvm_free(
// DEVICE-NEXT: llvm.call @rlx_call_failed(%[[STATE]])
module {
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
  llvm.func @allocates(%n: i64) -> !llvm.ptr {
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    %c64 = llvm.mlir.constant(64 : i64) : i64
    %q = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%c64, %n) : (i64, i64) -> !llvm.ptr
    llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
    llvm.return %q : !llvm.ptr
  }
}

// -----

// A failed check passes the state and always leaves; a caller of a function
// that can fail asks the state after the call; a function that cannot fail
// is left alone.
// CHECK-LABEL: llvm.func @checks(
// CHECK: %[[STATE:.+]] = llvm.call @rlx_call_state()
// CHECK: ^{{.+}}:
// CHECK: llvm.call @rlx_check_failed(%[[STATE]], %{{.+}})
// CHECK-NEXT: %[[TRUE:.+]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT: llvm.cond_br %[[TRUE]], ^[[EXIT:.+]], ^
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func @caller(
// CHECK: %[[STATE:.+]] = llvm.call @rlx_call_state()
// CHECK: llvm.call @checks(
// CHECK-NEXT: %[[FAILED:.+]] = llvm.call @rlx_call_failed(%[[STATE]])
// CHECK-NEXT: llvm.cond_br %[[FAILED]]
// CHECK: %[[ZERO:.+]] = llvm.mlir.zero : i32
// CHECK-NEXT: llvm.return %[[ZERO]] : i32
// CHECK-LABEL: llvm.func @pure(
// CHECK-NOT: rlx_call_state
// CHECK: llvm.return
module {
  llvm.mlir.global private constant @message("model.mlir:3:7: does not divide\00") {addr_space = 0 : i32}
  llvm.func @rlx_check_failed(!llvm.ptr)
  llvm.func @checks(%ok: i1) {
    llvm.cond_br %ok, ^done, ^fail
  ^fail:
    %m = llvm.mlir.addressof @message : !llvm.ptr
    llvm.call @rlx_check_failed(%m) : (!llvm.ptr) -> ()
    llvm.br ^done
  ^done:
    llvm.return
  }
  llvm.func @caller(%ok: i1) -> i32 {
    llvm.call @checks(%ok) : (i1) -> ()
    %one = llvm.mlir.constant(1 : i32) : i32
    llvm.return %one : i32
  }
  llvm.func @pure(%x: i32) -> i32 {
    llvm.return %x : i32
  }
}

// -----

// Inside a parallel loop a failure skips the rest of the iteration (a copy
// of the loop body's own terminator); the thread that entered the call asks
// the state after the parallel region.
// CHECK-LABEL: llvm.func @parallel(
// CHECK: %[[STATE:.+]] = llvm.call @rlx_call_state()
// CHECK: omp.parallel
// CHECK: omp.loop_nest
// CHECK: %[[P:.+]] = llvm.call @rlx_alloc(%[[STATE]],
// CHECK: llvm.cond_br %{{.+}}, ^[[SKIP:.+]], ^
// CHECK: llvm.call @rlx_free(%[[STATE]], %[[P]])
// CHECK: omp.yield
// CHECK: ^[[SKIP]]:
// CHECK-NEXT: omp.yield
// CHECK: omp.terminator
// CHECK: %[[FAILED:.+]] = llvm.call @rlx_call_failed(%[[STATE]])
// CHECK-NEXT: llvm.cond_br %[[FAILED]], ^[[EXIT:.+]], ^
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: llvm.return
module {
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
  llvm.func @parallel(%n: i64, %out: !llvm.ptr) {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %c64 = llvm.mlir.constant(64 : i64) : i64
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : i64 = (%c0) to (%n) step (%c1) {
          %p = llvm.call @_mlir_memref_to_llvm_alloc(%c64) : (i64) -> !llvm.ptr
          llvm.store %i, %p : i64, !llvm.ptr
          %v = llvm.load %p : !llvm.ptr -> i64
          %slot = llvm.getelementptr %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i64
          llvm.store %v, %slot : i64, !llvm.ptr
          llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
          omp.yield
        }
      }
      omp.terminator
    }
    llvm.return
  }
}
