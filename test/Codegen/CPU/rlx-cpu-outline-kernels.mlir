// RUN: rlx-opt %s -rlx-cpu-outline-kernels=min-kernels=2 | FileCheck %s

// Each loop nest of a function with more than min-kernels of them becomes a
// private never-inlined function, placed before it: the values it reads
// from outside are its arguments (constants are cloned in), its results are
// returned.
// CHECK: func.func private @three_kernel0(%{{.+}}: memref<8xf32>, %{{.+}}: memref<8xf32>) attributes {passthrough = ["noinline"]}
// CHECK: arith.constant 0 : index
// CHECK: arith.constant 8 : index
// CHECK: scf.for
// CHECK: func.func private @three_kernel1(%{{.+}}: index, %{{.+}}: memref<8xf32>) -> f32
// CHECK: %[[R:.+]] = scf.for
// CHECK: return %[[R]] : f32
// CHECK: func.func private @three_kernel2(
// CHECK-LABEL: func.func @three(
// CHECK-SAME: %[[A:.+]]: memref<8xf32>, %[[B:.+]]: memref<8xf32>, %[[N:.+]]: index)
// CHECK: call @three_kernel0(%[[A]], %[[B]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK: %[[SUM:.+]] = call @three_kernel1(%[[N]], %[[B]]) : (index, memref<8xf32>) -> f32
// CHECK: call @three_kernel2(%[[SUM]], %[[A]]) : (f32, memref<8xf32>) -> ()
// CHECK: return %[[SUM]]
func.func @three(%a: memref<8xf32>, %b: memref<8xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    memref.store %v, %b[%i] : memref<8xf32>
  }
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %b[%i] : memref<8xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %sum, %a[%i] : memref<8xf32>
  }
  return %sum : f32
}

// Two loop nests are not more than min-kernels: left in place.
// CHECK-LABEL: func.func @two(
// CHECK-NOT: call
// CHECK: scf.for
// CHECK: scf.for
// CHECK: return
func.func @two(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  return
}

// A vector mask built from constants is recomputed inside the new function;
// a kernel reading a vector loaded from memory stays where it is.
// CHECK: func.func private @masks_kernel0(%{{.+}}: memref<8xf32>)
// CHECK: vector.constant_mask [4] : vector<8xi1>
// CHECK: vector.transfer_write
// CHECK-LABEL: func.func @masks(
// CHECK: call @masks_kernel0(
// CHECK: %[[V:.+]] = vector.transfer_read
// CHECK: scf.for
// CHECK: vector.transfer_write %[[V]]
// CHECK: call @masks_kernel2(
func.func @masks(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %ones = arith.constant dense<1.0> : vector<8xf32>
  %mask = vector.constant_mask [4] : vector<8xi1>
  scf.for %i = %c0 to %c2 step %c1 {
    vector.transfer_write %ones, %a[%c0], %mask : vector<8xf32>, memref<8xf32>
  }
  %v = vector.transfer_read %b[%c0], %zero : memref<8xf32>, vector<8xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    vector.transfer_write %v, %a[%c0] : vector<8xf32>, memref<8xf32>
  }
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %zero, %b[%i] : memref<8xf32>
  }
  return
}
