// RUN: rlx-opt %s -split-input-file -rlx-cpu-inline-alloca-scopes | FileCheck %s

// A parallel body whose scope holds an intrinsic call directly (upstream's
// canonicalization keeps that scope) and a loop: the scope is replaced by
// its body.
// CHECK-LABEL: func @intrinsic_in_body
// CHECK-NOT:     memref.alloca_scope
// CHECK:         omp.loop_nest
// CHECK-NEXT:      llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      scf.for
// CHECK:           omp.yield
func.func @intrinsic_in_body(%a: vector<16xi32>, %b: vector<64xi8>, %n: index, %m: memref<4xvector<16xi32>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.alloca_scope {
          %r = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%a, %b, %b) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
          memref.store %r, %m[%i] : memref<4xvector<16xi32>>
          scf.for %j = %c0 to %n step %c1 {
            memref.store %a, %m[%j] : memref<4xvector<16xi32>>
          }
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A scope that makes an alloca stays, and one with results gives them.
// CHECK-LABEL: func @allocating
// CHECK:         memref.alloca_scope
// CHECK:           memref.alloca
// CHECK-LABEL: func @results
// CHECK-NOT:     memref.alloca_scope
// CHECK:         %[[S:.+]] = arith.addi %arg0, %arg0
// CHECK:         return %[[S]]
func.func @allocating(%v: f32) {
  memref.alloca_scope {
    %a = memref.alloca() : memref<4xf32>
    %c0 = arith.constant 0 : index
    memref.store %v, %a[%c0] : memref<4xf32>
  }
  return
}
func.func @results(%x: index) -> index {
  %r = memref.alloca_scope -> (index) {
    %s = arith.addi %x, %x : index
    memref.alloca_scope.return %s : index
  }
  return %r : index
}
