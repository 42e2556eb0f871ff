// RUN: rlx-opt %s -split-input-file -rlx-ensure-fresh-results | FileCheck %s

// An argument, a global and a buffer returned twice are copied; a fresh
// allocation returned once is kept.
// CHECK-LABEL: func @results
// CHECK-SAME: (%[[ARG:.+]]: memref<?x3xf32>)
// CHECK: %[[OWN:.+]] = memref.alloc() : memref<3xf32>
// CHECK: %[[G:.+]] = memref.get_global @cst
// CHECK: %[[D:.+]] = memref.dim %[[ARG]]
// CHECK: %[[C0:.+]] = memref.alloc(%[[D]]) : memref<?x3xf32>
// CHECK: memref.copy %[[ARG]], %[[C0]]
// CHECK: %[[C1:.+]] = memref.alloc() : memref<3xf32>
// CHECK: memref.copy %[[G]], %[[C1]]
// CHECK: %[[C2:.+]] = memref.alloc() : memref<3xf32>
// CHECK: memref.copy %[[OWN]], %[[C2]]
// CHECK: return %[[C0]], %[[C1]], %[[OWN]], %[[C2]]
memref.global "private" constant @cst : memref<3xf32> = dense<1.0>
func.func @results(%arg: memref<?x3xf32>) -> (memref<?x3xf32>, memref<3xf32>, memref<3xf32>, memref<3xf32>)
    attributes {rlx.entry = {}} {
  %own = memref.alloc() : memref<3xf32>
  %g = memref.get_global @cst : memref<3xf32>
  return %arg, %g, %own, %own : memref<?x3xf32>, memref<3xf32>, memref<3xf32>, memref<3xf32>
}

// -----

// A view of a fresh allocation is kept.
// CHECK-LABEL: func @view
// CHECK: %[[A:.+]] = memref.alloc
// CHECK-NEXT: %[[V:.+]] = memref.expand_shape %[[A]]
// CHECK-NEXT: return %[[V]]
func.func @view() -> memref<2x3xf32> attributes {rlx.entry = {}} {
  %a = memref.alloc() : memref<6xf32>
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
  return %v : memref<2x3xf32>
}

// -----

// Negative: functions that are not entry points are left alone.
// CHECK-LABEL: func @not_entry
// CHECK-NOT: memref.copy
func.func @not_entry(%arg: memref<3xf32>) -> memref<3xf32> {
  return %arg : memref<3xf32>
}
