// RUN: rlx-opt %s -rlx-fuse-elementwise -split-input-file | FileCheck %s

// Adam's shape: the new moment m2 is returned and read by the weight
// update. One loop computes both (m2 is an extra result), instead of a loop
// for m2 and one for the update, or m2 computed twice. The scalar rate
// keeps its broadcasting map.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @update
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[ID]], #[[ID]], #[[ID]], #[[ID]]]
// CHECK-SAME: ins(%arg0, %arg3, %arg2, %arg1 :
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK: linalg.yield %{{.+}}, %{{.+}} : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1
#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @update(%p: tensor<1024xf32>, %g: tensor<1024xf32>, %m: tensor<1024xf32>, %lr: tensor<f32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %e = tensor.empty() : tensor<1024xf32>
  %m2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%m, %g : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %c = arith.constant 0.9 : f32
    %x = arith.mulf %a, %c : f32
    %y = arith.addf %x, %b : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32>
  %e2 = tensor.empty() : tensor<1024xf32>
  %p2 = linalg.generic {indexing_maps = [#id, #id, #scalar, #id], iterator_types = ["parallel"]} ins(%p, %m2, %lr : tensor<1024xf32>, tensor<1024xf32>, tensor<f32>) outs(%e2 : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %r: f32, %o: f32):
    %s = arith.mulf %b, %r : f32
    %y = arith.subf %a, %s : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32>
  return %p2, %m2 : tensor<1024xf32>, tensor<1024xf32>
}

// -----

// A use of the producer before the consumer: its result could not replace
// that use, so the producer keeps its loop (and linalg's fusion, which
// fuses single-use producers only, leaves it too).
// CHECK-LABEL: func.func @used_before
// CHECK: linalg.generic
// CHECK: call @sink
// CHECK: linalg.generic
func.func private @sink(tensor<8xf32>)
func.func @used_before(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  func.call @sink(%b) : (tensor<8xf32>) -> ()
  %e2 = tensor.empty() : tensor<8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %c : tensor<8xf32>
}

