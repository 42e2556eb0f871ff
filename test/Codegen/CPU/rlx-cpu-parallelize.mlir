// RUN: rlx-opt %s -split-input-file -rlx-cpu-parallelize | FileCheck %s

// A marked loop with a static trip count and enough work becomes
// scf.parallel; the mark is gone.
// CHECK-LABEL: func @big_static
// CHECK: scf.parallel
// CHECK-NOT: rlx.parallel
func.func @big_static(%x: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c1024 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      vector.transfer_write %v, %x[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<1024x1024xf32>
    }
  } {rlx.parallel}
  return
}

// -----

// Too little work for a fork: the loop stays serial.
// CHECK-LABEL: func @small_static
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-NOT: rlx.parallel
func.func @small_static(%x: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    vector.transfer_write %v, %x[%i, %c0] {in_bounds = [true]} : vector<16xf32>, memref<4x16xf32>
  } {rlx.parallel}
  return
}

// -----

// A dynamic trip count is tested at run time: 2048 rows of 128 lanes of
// work each make the 256K threshold, so the parallel copy runs from 2048
// rows on, the serial copy below.
// CHECK-LABEL: func @dynamic
// CHECK: %[[TRIPS:.+]] = arith.ceildivsi
// CHECK: %[[WORTH:.+]] = arith.cmpi sge, %[[TRIPS]], %c2048
// CHECK: scf.if %[[WORTH]]
// CHECK: scf.parallel
// CHECK: } else {
// CHECK: scf.for
func.func @dynamic(%x: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c128 step %c16 {
      vector.transfer_write %v, %x[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<?x128xf32>
    }
  } {rlx.parallel}
  return
}
