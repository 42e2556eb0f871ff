// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s

// CHECK-LABEL: func @collectives
// CHECK-SAME: (%[[X:.+]]: tensor<8x3xf32>, %[[I:.+]]: tensor<?x4xi32>)
func.func @collectives(%x: tensor<8x3xf32>, %i: tensor<?x4xi32>)
    -> (tensor<8x3xf32>, tensor<8x3xf32>, tensor<?x4xi32>, tensor<?x4xi32>,
        tensor<32x3xf32>, tensor<8x12xf32>, tensor<2x3xf32>, tensor<?x4xi32>,
        tensor<8x3xf32>, tensor<i32>) {
  // CHECK: rlx.all_reduce %[[X]] {axis = "batch", kind = "sum"} : tensor<8x3xf32>
  %s = rlx.all_reduce %x {axis = "batch", kind = "sum"} : tensor<8x3xf32>
  // CHECK: rlx.all_reduce %[[X]] {axis = "batch", kind = "mean"} : tensor<8x3xf32>
  %m = rlx.all_reduce %x {axis = "batch", kind = "mean"} : tensor<8x3xf32>
  // CHECK: rlx.all_reduce %[[I]] {axis = "batch", kind = "max"} : tensor<?x4xi32>
  %mx = rlx.all_reduce %i {axis = "batch", kind = "max"} : tensor<?x4xi32>
  // CHECK: rlx.all_reduce %[[I]] {axis = "batch", kind = "min"} : tensor<?x4xi32>
  %mn = rlx.all_reduce %i {axis = "batch", kind = "min"} : tensor<?x4xi32>
  // CHECK: rlx.all_gather %[[X]] {axis = "i", axis_size = 4 : i64, dim = 0 : i64} : (tensor<8x3xf32>) -> tensor<32x3xf32>
  %g0 = rlx.all_gather %x {axis = "i", dim = 0 : i64, axis_size = 4 : i64} : (tensor<8x3xf32>) -> tensor<32x3xf32>
  // CHECK: rlx.all_gather %[[X]] {axis = "i", axis_size = 4 : i64, dim = 1 : i64} : (tensor<8x3xf32>) -> tensor<8x12xf32>
  %g1 = rlx.all_gather %x {axis = "i", dim = 1 : i64, axis_size = 4 : i64} : (tensor<8x3xf32>) -> tensor<8x12xf32>
  // CHECK: rlx.reduce_scatter %[[X]] {axis = "i", axis_size = 4 : i64, dim = 0 : i64} : (tensor<8x3xf32>) -> tensor<2x3xf32>
  %rs = rlx.reduce_scatter %x {axis = "i", dim = 0 : i64, axis_size = 4 : i64} : (tensor<8x3xf32>) -> tensor<2x3xf32>
  // A dynamic dim stays dynamic on both sides.
  // CHECK: rlx.reduce_scatter %[[I]] {axis = "i", axis_size = 2 : i64, dim = 0 : i64} : (tensor<?x4xi32>) -> tensor<?x4xi32>
  %rsd = rlx.reduce_scatter %i {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<?x4xi32>) -> tensor<?x4xi32>
  // CHECK: rlx.broadcast %[[X]] {axis = "batch", root = 1 : i64} : tensor<8x3xf32>
  %b = rlx.broadcast %x {axis = "batch", root = 1 : i64} : tensor<8x3xf32>
  // CHECK: rlx.axis_index {axis = "batch"} : tensor<i32>
  %r = rlx.axis_index {axis = "batch"} : tensor<i32>
  return %s, %m, %mx, %mn, %g0, %g1, %rs, %rsd, %b, %r
      : tensor<8x3xf32>, tensor<8x3xf32>, tensor<?x4xi32>, tensor<?x4xi32>,
        tensor<32x3xf32>, tensor<8x12xf32>, tensor<2x3xf32>, tensor<?x4xi32>,
        tensor<8x3xf32>, tensor<i32>
}

// CHECK-LABEL: func @broadcast_default_root
// CHECK: rlx.broadcast %{{.+}} {axis = "batch"} : tensor<3xf32>
func.func @broadcast_default_root(%x: tensor<3xf32>) -> tensor<3xf32> {
  %b = rlx.broadcast %x {axis = "batch"} : tensor<3xf32>
  return %b : tensor<3xf32>
}
