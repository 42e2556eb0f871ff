// RUN: rlx-opt %s -rlx-cpu-split-reductions | FileCheck %s

// A sum of 2^20 elements: 64 parts of 16384 (a parallel dim the CPU
// pipeline spreads over cores), then a fold of the 64 partials.
// CHECK-LABEL: func.func @long_sum
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [64, 16384]
// CHECK: linalg.fill
// CHECK: %[[PARTS:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]
// CHECK: } -> tensor<64xf32>
// CHECK: linalg.generic {{.+}} iterator_types = ["reduction"]{{.*}} ins(%[[PARTS]] : tensor<64xf32>)
#in = affine_map<(d0) -> (d0)>
#out = affine_map<(d0) -> ()>
func.func @long_sum(%x: tensor<1048576xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction"]}
      ins(%x : tensor<1048576xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// Short or dynamic runs stay whole.
// CHECK-LABEL: func.func @short_sum
// CHECK-NOT: expand_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
func.func @short_sum(%x: tensor<1024xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction"]}
      ins(%x : tensor<1024xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @dynamic_sum
// CHECK-NOT: expand_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
func.func @dynamic_sum(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
