// RUN: rlx-opt %s -split-input-file -rlx-fill-splat-constants | FileCheck %s
// RUN: rlx-opt %s -split-input-file "-rlx-fill-splat-constants=min-bytes=1" | FileCheck %s --check-prefix=ALL

// A large splat becomes a fill of an empty tensor: no global holds its
// 256 MiB of elements.
// CHECK-LABEL: func @large_splat
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<8192x8192xf32>
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ONE]] : f32) outs(%[[EMPTY]] : tensor<8192x8192xf32>)
// CHECK: return %[[FILL]]
// CHECK-NOT: dense<
func.func @large_splat() -> tensor<8192x8192xf32> {
  %c = arith.constant dense<1.0> : tensor<8192x8192xf32>
  return %c : tensor<8192x8192xf32>
}

// -----

// Integer and i1 splats too; every use sees the one fill.
// CHECK-LABEL: func @integer_splats
// CHECK-DAG: linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<4096xi32>)
// CHECK-DAG: linalg.fill ins(%{{.+}} : i1) outs(%{{.+}} : tensor<8192xi1>)
// CHECK-NOT: dense<
func.func @integer_splats() -> (tensor<4096xi32>, tensor<4096xi32>, tensor<8192xi1>) {
  %c = arith.constant dense<7> : tensor<4096xi32>
  %t = arith.constant dense<true> : tensor<8192xi1>
  return %c, %c, %t : tensor<4096xi32>, tensor<4096xi32>, tensor<8192xi1>
}

// -----

// Under min-bytes (4096 by default) a splat stays a read-only global.
// CHECK-LABEL: func @small_splat
// CHECK: arith.constant dense<2.000000e+00> : tensor<1023xf32>
// CHECK-NOT: linalg.fill
// ALL-LABEL: func @small_splat
// ALL: linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1023xf32>)
func.func @small_splat() -> tensor<1023xf32> {
  %c = arith.constant dense<2.0> : tensor<1023xf32>
  return %c : tensor<1023xf32>
}

// -----

// Not a splat: the elements are the data, left alone.
// CHECK-LABEL: func @not_splat
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// ALL-LABEL: func @not_splat
// ALL-NOT: linalg.fill
func.func @not_splat() -> tensor<2xf32> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// Scalars are not tensors: left alone.
// ALL-LABEL: func @scalar
// ALL-NOT: linalg.fill
func.func @scalar() -> f32 {
  %c = arith.constant 3.0 : f32
  return %c : f32
}
