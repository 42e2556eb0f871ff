// RUN: rlx-opt %s -rlx-gpu-block-reductions=block-size=64 | FileCheck %s

// A sum over every dim: one block of 64 threads; each folds a strided share
// into a partial starting at 0 (addf's neutral element), the partials meet
// in a tree in workgroup memory (strides 32 ... 1, a barrier after each),
// and thread 0 adds the total to the output's initial value.
// CHECK-LABEL: func.func @sum_all
// CHECK-NOT: linalg.generic
// CHECK: %[[TOTAL:.+]] = arith.muli %{{.+}}, %c300
// CHECK: gpu.launch
// CHECK-SAME: threads(%[[TID:[a-z0-9]+]], {{.+}} = %c64,
// CHECK-SAME: workgroup(%[[P:.+]] : memref<64xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PART:.+]] = scf.for %{{.+}} = %[[TID]] to %[[TOTAL]] step %c64{{.*}} iter_args(%[[ACC:.+]] = %[[ZERO]])
// CHECK: affine.apply
// CHECK: memref.load %arg0
// CHECK: arith.addf %{{.+}}, %[[ACC]]
// CHECK: memref.store %[[PART]], %[[P]]
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %{{.+}}, %c32
// CHECK: arith.addf
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %{{.+}}, %c1{{_.*}}
// CHECK: gpu.barrier
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK: memref.load %arg1[]
// CHECK: arith.addf
// CHECK: memref.store %{{.+}}, %arg1[]
func.func @sum_all(%x: memref<?x300xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<?x300xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// The max starts from -inf.
// CHECK-LABEL: func.func @max_all
// CHECK: gpu.launch
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
func.func @max_all(%x: memref<1000xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<1000xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// A reduction with a parallel dim stays for the loop mapping.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @rows(%x: memref<8x300xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x300xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// A body reading linalg.index cannot leave the linalg op: loop mapping.
// CHECK-LABEL: func.func @indexed
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @indexed(%x: memref<1000xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<1000xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %p = arith.mulf %a, %f : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}
