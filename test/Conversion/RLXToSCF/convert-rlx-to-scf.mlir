// RUN: rlx-opt %s -split-input-file -convert-rlx-to-scf -verify-diagnostics | FileCheck %s

// A scan: an scf.for over the steps; the carry and the stacked outputs are
// iteration arguments, each step's slice read and its output inserted in
// place; the body is inlined.
func.func private @step(%w: tensor<4xf32>, %h: tensor<?x4xf32>, %x: tensor<?x4xf32>)
    -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %a = rlx.mul %w, %h : (tensor<4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %b = rlx.add %a, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %b, %a : tensor<?x4xf32>, tensor<?x4xf32>
}
// CHECK-LABEL: func @scan
// CHECK-SAME: (%[[W:[^ ]+]]: tensor<4xf32>, %[[H:[^ ]+]]: tensor<?x4xf32>, %[[XS:[^ ]+]]: tensor<?x?x4xf32>)
// CHECK: %[[LEN:[^ ]+]] = tensor.dim %[[XS]], %{{.*}} : tensor<?x?x4xf32>
// CHECK: %[[ROWS:[^ ]+]] = tensor.dim %[[H]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[EMPTY:[^ ]+]] = tensor.empty(%[[LEN]], %[[ROWS]]) : tensor<?x?x4xf32>
// CHECK: scf.for %[[I:[^ ]+]] = %{{.*}} to %[[LEN]] step %{{.*}} iter_args(%[[C:[^ ]+]] = %[[H]], %[[YS:[^ ]+]] = %[[EMPTY]])
// CHECK:   %[[X:[^ ]+]] = tensor.extract_slice %[[XS]][%[[I]], 0, 0]
// CHECK:   %[[A:[^ ]+]] = rlx.mul %[[W]], %[[C]]
// CHECK:   %[[B:[^ ]+]] = rlx.add %[[A]], %[[X]]
// CHECK:   %[[NEW:[^ ]+]] = tensor.insert_slice %[[A]] into %[[YS]][%[[I]], 0, 0]
// CHECK:   scf.yield %[[B]], %[[NEW]]
// CHECK-NOT: rlx.scan
func.func @scan(%w: tensor<4xf32>, %h: tensor<?x4xf32>, %xs: tensor<?x?x4xf32>)
    -> (tensor<?x4xf32>, tensor<?x?x4xf32>) {
  %hn, %ys = rlx.scan @step consts(%w) init(%h) xs(%xs)
      : (tensor<4xf32>, tensor<?x4xf32>, tensor<?x?x4xf32>) -> (tensor<?x4xf32>, tensor<?x?x4xf32>)
  return %hn, %ys : tensor<?x4xf32>, tensor<?x?x4xf32>
}

// -----

// reverse: step i reads and writes index length - 1 - i.
func.func private @id(%h: tensor<2xf32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  return %x, %h : tensor<2xf32>, tensor<2xf32>
}
// CHECK-LABEL: func @reverse
// CHECK: %[[LEN:[^ ]+]] = arith.constant 3 : index
// CHECK: scf.for %[[I:[^ ]+]] =
// CHECK:   %[[LAST:[^ ]+]] = arith.subi %[[LEN]], %{{.*}} : index
// CHECK:   %[[STEP:[^ ]+]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK:   tensor.extract_slice %{{.*}}[%[[STEP]], 0]
// CHECK:   tensor.insert_slice %{{.*}}[%[[STEP]], 0]
func.func @reverse(%h: tensor<2xf32>, %xs: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %hn, %ys = rlx.scan @id init(%h) xs(%xs) {reverse = true}
      : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  return %hn, %ys : tensor<2xf32>, tensor<3x2xf32>
}

// -----

// A stacked output whose dynamic dim is made inside the body: the first
// step runs before the loop and sizes it; with no step at all, the stacked
// output is empty.
func.func private @grow(%h: tensor<2xf32>, %x: tensor<?xf32>) -> (tensor<2xf32>, tensor<?xf32>) {
  %c = rlx.concat %x, %x {axis = 0 : i64} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %h, %c : tensor<2xf32>, tensor<?xf32>
}
// CHECK-LABEL: func @unsized
// CHECK: %[[ANY:[^ ]+]] = arith.cmpi sgt
// CHECK: scf.if %[[ANY]]
// CHECK:   %[[FIRST:[^ ]+]] = rlx.concat
// CHECK:   %[[SIZE:[^ ]+]] = tensor.dim %[[FIRST]]
// CHECK:   %[[EMPTY:[^ ]+]] = tensor.empty(%[[SIZE]]) : tensor<3x?xf32>
// CHECK:   %[[INTO:[^ ]+]] = tensor.insert_slice %[[FIRST]] into %[[EMPTY]]
// CHECK:   scf.for %{{.*}} = %c1 to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[INTO]])
// CHECK: } else {
// CHECK:   tensor.empty(%c0) : tensor<3x?xf32>
func.func @unsized(%h: tensor<2xf32>, %xs: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %hn, %ys = rlx.scan @grow init(%h) xs(%xs)
      : (tensor<2xf32>, tensor<3x?xf32>) -> (tensor<2xf32>, tensor<3x?xf32>)
  return %ys : tensor<3x?xf32>
}

// -----

// A while: the condition function in the before region, read as i1.
func.func private @below(%limit: tensor<f32>, %x: tensor<f32>) -> tensor<i1> {
  %c = rlx.compare "lt", %x, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %c : tensor<i1>
}
func.func private @twice(%limit: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %y = rlx.add %x, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}
// CHECK-LABEL: func @while
// CHECK-SAME: (%[[L:[^ ]+]]: tensor<f32>, %[[X:[^ ]+]]: tensor<f32>)
// CHECK: scf.while (%[[A:[^ ]+]] = %[[X]])
// CHECK:   %[[C:[^ ]+]] = rlx.compare "lt", %[[A]], %[[L]]
// CHECK:   %[[B:[^ ]+]] = tensor.extract %[[C]][]
// CHECK:   scf.condition(%[[B]]) %[[A]]
// CHECK: do {
// CHECK: ^bb0(%[[D:[^ ]+]]: tensor<f32>):
// CHECK:   %[[Y:[^ ]+]] = rlx.add %[[D]], %[[D]]
// CHECK:   scf.yield %[[Y]]
func.func @while(%limit: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %r = rlx.while @below, @twice consts(%limit) init(%x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A switch: the index clamped into range, one case per branch but the
// last, which is the default.
func.func private @neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.neg %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @abs(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.abs %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
// CHECK-LABEL: func @switch
// CHECK: %[[I:[^ ]+]] = tensor.extract %{{.*}}[] : tensor<i32>
// CHECK: %[[LO:[^ ]+]] = arith.maxsi %[[I]], %{{.*}} : i32
// CHECK: %[[HI:[^ ]+]] = arith.minsi %[[LO]], %{{.*}} : i32
// CHECK: %[[K:[^ ]+]] = arith.index_cast %[[HI]] : i32 to index
// CHECK: scf.index_switch %[[K]] -> tensor<3xf32>
// CHECK: case 0 {
// CHECK:   rlx.neg
// CHECK: case 1 {
// CHECK:   rlx.abs
// CHECK: default {
// CHECK-NEXT: scf.yield
func.func @switch(%i: tensor<i32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.switch %i [@neg, @abs, @id](%x) : (tensor<i32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// An i1 index: false picks the first branch.
// CHECK-LABEL: func @cond
// CHECK: %[[P:[^ ]+]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: arith.extui %[[P]] : i1 to i32
func.func private @neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.neg %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @cond(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.switch %p [@id, @neg](%x) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// A loop inside a body is lowered in the next round.
func.func private @inner(%h: tensor<f32>) -> tensor<f32> {
  %y = rlx.add %h, %h : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}
func.func private @outer(%h: tensor<f32>) -> tensor<f32> {
  %r = rlx.scan @inner init(%h) {length = 3 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
// CHECK-LABEL: func @nested
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     rlx.add
// CHECK-NOT: rlx.scan
func.func @nested(%h: tensor<f32>) -> tensor<f32> {
  %r = rlx.scan @outer init(%h) {length = 2 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}


// -----

// unroll = 2 over 5 steps: a main loop of two inlined steps per iteration
// up to 4, then one step at a time for the rest.
func.func private @twice(%h: tensor<f32>) -> tensor<f32> {
  %y = rlx.add %h, %h : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}
// CHECK-LABEL: func @unrolled
// CHECK: %[[FIVE:[^ ]+]] = arith.constant 5 : index
// CHECK: %[[REM:[^ ]+]] = arith.remsi %[[FIVE]], %{{.*}} : index
// CHECK: %[[MAIN:[^ ]+]] = arith.subi %[[FIVE]], %[[REM]] : index
// CHECK: %[[A:[^ ]+]] = scf.for %{{.*}} = %{{.*}} to %[[MAIN]] step %{{.*}} iter_args
// CHECK:   rlx.add
// CHECK:   rlx.add
// CHECK:   scf.yield
// CHECK: scf.for %{{.*}} = %[[MAIN]] to %[[FIVE]] step %{{.*}} iter_args(%{{.*}} = %[[A]])
// CHECK:   rlx.add
// CHECK-NOT: rlx.add
// CHECK:   scf.yield
func.func @unrolled(%h: tensor<f32>) -> tensor<f32> {
  %r = rlx.scan @twice init(%h) {length = 5 : i64, unroll = 2 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
