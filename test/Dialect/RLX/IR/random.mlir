// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s

// CHECK-LABEL: func @keys
func.func @keys(%key: tensor<2xi32>, %keys: tensor<?x3x2xi32>, %data: tensor<i32>,
                %many: tensor<4xi32>) {
  // CHECK: rlx.random_split %{{.*}} {num = 3 : i64} : (tensor<2xi32>) -> tensor<3x2xi32>
  %0 = rlx.random_split %key {num = 3 : i64} : (tensor<2xi32>) -> tensor<3x2xi32>
  // CHECK: rlx.random_split %{{.*}} {num = 1 : i64} : (tensor<?x3x2xi32>) -> tensor<?x3x1x2xi32>
  %1 = rlx.random_split %keys {num = 1 : i64} : (tensor<?x3x2xi32>) -> tensor<?x3x1x2xi32>
  // CHECK: rlx.random_fold_in %{{.*}}, %{{.*}} : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  %2 = rlx.random_fold_in %key, %data : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  // One key, many data: a key per element of the data.
  // CHECK: rlx.random_fold_in %{{.*}}, %{{.*}} : (tensor<2xi32>, tensor<4xi32>) -> tensor<4x2xi32>
  %3 = rlx.random_fold_in %key, %many : (tensor<2xi32>, tensor<4xi32>) -> tensor<4x2xi32>
  // CHECK: rlx.random_fold_in %{{.*}}, %{{.*}} : (tensor<?x3x2xi32>, tensor<i32>) -> tensor<?x3x2xi32>
  %4 = rlx.random_fold_in %keys, %data : (tensor<?x3x2xi32>, tensor<i32>) -> tensor<?x3x2xi32>
  return
}

// CHECK-LABEL: func @samplers
func.func @samplers(%key: tensor<2xi32>, %keys: tensor<?x2xi32>) {
  // CHECK: rlx.random_bits %{{.*}} : tensor<2xi32> -> tensor<5x7xi32>
  %0 = rlx.random_bits %key : tensor<2xi32> -> tensor<5x7xi32>
  // A scalar sample.
  // CHECK: rlx.random_bits %{{.*}} : tensor<2xi32> -> tensor<i32>
  %1 = rlx.random_bits %key : tensor<2xi32> -> tensor<i32>
  // CHECK: rlx.random_bits %{{.*}} : tensor<?x2xi32> -> tensor<?x3xi32>
  %2 = rlx.random_bits %keys : tensor<?x2xi32> -> tensor<?x3xi32>
  // CHECK: rlx.random_uniform %{{.*}} : tensor<2xi32> -> tensor<1000xf32>
  %3 = rlx.random_uniform %key : tensor<2xi32> -> tensor<1000xf32>
  // CHECK: rlx.random_uniform %{{.*}} {maxval = 3.000000e+00 : f64, minval = -2.000000e+00 : f64} : tensor<?x2xi32> -> tensor<?x4xf64>
  %4 = rlx.random_uniform %keys {minval = -2.0, maxval = 3.0} : tensor<?x2xi32> -> tensor<?x4xf64>
  // CHECK: rlx.random_normal %{{.*}} : tensor<2xi32> -> tensor<4x3xf32>
  %5 = rlx.random_normal %key : tensor<2xi32> -> tensor<4x3xf32>
  // CHECK: rlx.random_normal %{{.*}} : tensor<?x2xi32> -> tensor<?xf64>
  %6 = rlx.random_normal %keys : tensor<?x2xi32> -> tensor<?xf64>
  // CHECK: rlx.random_truncated_normal %{{.*}} {lower = -2.000000e+00 : f64, upper = 2.000000e+00 : f64} : tensor<2xi32> -> tensor<4x3xf32>
  %7 = rlx.random_truncated_normal %key {lower = -2.0, upper = 2.0} : tensor<2xi32> -> tensor<4x3xf32>
  // One-sided: an infinite bound.
  // CHECK: rlx.random_truncated_normal %{{.*}} {lower = 5.000000e-01 : f64, upper = 0x7FF0000000000000 : f64} : tensor<?x2xi32> -> tensor<?x5xf64>
  %8 = rlx.random_truncated_normal %keys {lower = 0.5, upper = 0x7FF0000000000000 : f64} : tensor<?x2xi32> -> tensor<?x5xf64>
  return
}
