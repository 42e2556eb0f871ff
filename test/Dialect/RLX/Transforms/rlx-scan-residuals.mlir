// RUN: rlx-opt %s -split-input-file -rlx-scan-residuals | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-phase-transform -rlx-phase-simplify | FileCheck %s --check-prefix=PIPE

// A backward scan tagged by scan's VJP rule, whose primal xs (the start
// carries %hs and the xs) come from the stacking scan: what the body
// computes from them alone (tanh's derivative, h's transpose) moves into the
// forward loop, stacked per step; the start carries are no longer kept.

// CHECK-LABEL: func @fused
// CHECK: %[[F:.*]]:3 = rlx.scan @[[FWD:.*]] consts(%{{.*}}) init(%{{.*}}) xs(%{{.*}}) : ({{.*}}) -> (tensor<2x4xf32>, tensor<7x2x4xf32>, tensor<7x4x2xf32>)
// CHECK: rlx.scan @[[BWD:.*]] consts(%{{.*}}) init(%{{.*}}) xs(%[[F]]#1, %[[F]]#2) {reverse = true}
// CHECK-NOT: rlx.primal_xs
// CHECK: func.func private @[[BWD]](
// CHECK-NOT: rlx.tanh
// CHECK-NOT: rlx.transpose %arg3
// CHECK: return
// CHECK: func.func private @[[FWD]](
// CHECK: rlx.tanh
// CHECK-NOT: rlx.tanh
// CHECK: rlx.transpose %arg1
// CHECK: return
func.func private @step(%w: tensor<4x4xf32>, %h: tensor<2x4xf32>, %x: tensor<2x4xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %a = rlx.matmul %h, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %b = rlx.add %a, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %c = rlx.tanh %b : tensor<2x4xf32>
  return %c, %h : tensor<2x4xf32>, tensor<2x4xf32>
}
func.func private @back(%w: tensor<4x4xf32>, %dh: tensor<2x4xf32>, %dw: tensor<4x4xf32>,
                        %h: tensor<2x4xf32>, %x: tensor<2x4xf32>)
    -> (tensor<2x4xf32>, tensor<4x4xf32>) {
  %a = rlx.matmul %h, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %b = rlx.add %a, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %c = rlx.tanh %b : tensor<2x4xf32>
  %one = rlx.constant dense<1.0> : tensor<f32>
  %c2 = rlx.mul %c, %c : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %d = rlx.sub %one, %c2 : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %g = rlx.mul %dh, %d : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %wt = rlx.transpose %w {permutation = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %dprev = rlx.matmul %g, %wt : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %ht = rlx.transpose %h {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %gw = rlx.matmul %ht, %g : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %dw2 = rlx.add %dw, %gw : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %dprev, %dw2 : tensor<2x4xf32>, tensor<4x4xf32>
}
func.func @fused(%w: tensor<4x4xf32>, %h: tensor<2x4xf32>, %xs: tensor<7x2x4xf32>,
                 %dh: tensor<2x4xf32>, %dw: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %hn, %hs = rlx.scan @step consts(%w) init(%h) xs(%xs)
      : (tensor<4x4xf32>, tensor<2x4xf32>, tensor<7x2x4xf32>) -> (tensor<2x4xf32>, tensor<7x2x4xf32>)
  %d:2 = rlx.scan @back consts(%w) init(%dh, %dw) xs(%hs, %xs) {reverse = true, rlx.primal_xs = array<i64: 0, 1>}
      : (tensor<4x4xf32>, tensor<2x4xf32>, tensor<4x4xf32>, tensor<7x2x4xf32>, tensor<7x2x4xf32>) -> (tensor<2x4xf32>, tensor<4x4xf32>)
  return %d#1 : tensor<4x4xf32>
}

// -----

// Primal xs no scan produces: the residuals come from a map of their own
// (a carry-less scan), still before the backward loop. Untagged scans only
// lose what nobody reads.

// CHECK-LABEL: func @standalone
// CHECK: %[[M:.*]] = rlx.scan @[[MAP:.*]] init() xs(%{{.*}}) : (tensor<5x3xf32>) -> tensor<5x3xf32>
// CHECK: rlx.scan @{{.*}} init(%{{.*}}) xs(%[[M]]) {reverse = true}
// CHECK: func.func private @[[MAP]](
// CHECK-NEXT: rlx.exp
func.func private @back1(%g: tensor<3xf32>, %x: tensor<3xf32>) -> (tensor<3xf32>) {
  %e = rlx.exp %x : tensor<3xf32>
  %r = rlx.mul %g, %e : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @standalone(%g: tensor<3xf32>, %xs: tensor<5x3xf32>) -> tensor<3xf32> {
  %r = rlx.scan @back1 init(%g) xs(%xs) {reverse = true, rlx.primal_xs = array<i64: 0>}
      : (tensor<3xf32>, tensor<5x3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Through the pipeline: an outer scan whose step runs an inner scan and a
// remat. The inner loop's residuals are stacked per outer step (5x3x4); of
// the remat only its input is kept (5x4), its exp recomputed behind the
// barrier in the backward loop.

// PIPE-LABEL: func @g
// PIPE: rlx.scan @[[FWD:.*]] consts(%{{.*}}) init(%{{.*}}) xs(%{{.*}}) : ({{.*}}) -> (tensor<4xf32>, tensor<5x4xf32>, tensor<5x3x4xf32>, tensor<5x3x4xf32>)
// PIPE: rlx.scan @[[BWD:.*]] consts({{.*}}) {reverse = true}
// PIPE: func.func private @[[BWD]](
// PIPE: rlx.optimization_barrier
// PIPE-NEXT: rlx.exp
// PIPE: rlx.scan
// PIPE-NOT: rlx.tanh
// PIPE: return
// PIPE: func.func private @[[FWD]](
// PIPE-NEXT: rlx.scan
// PIPE-NOT: rlx.scan
// PIPE: return
func.func private @inner(%w: tensor<4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>) {
  %a = rlx.mul %h, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = rlx.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = rlx.tanh %b : tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func private @block(%h: tensor<4xf32>) -> tensor<4xf32> {
  %e = rlx.exp %h : tensor<4xf32>
  %l = rlx.log %e : tensor<4xf32>
  return %l : tensor<4xf32>
}
func.func private @outer(%w: tensor<4xf32>, %h: tensor<4xf32>, %xs: tensor<3x4xf32>) -> (tensor<4xf32>) {
  %hn = rlx.scan @inner consts(%w) init(%h) xs(%xs) : (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  %r = rlx.remat @block(%hn) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @loss(%w: tensor<4xf32>, %h: tensor<4xf32>, %xs: tensor<5x3x4xf32>) -> tensor<f32> {
  %hn = rlx.scan @outer consts(%w) init(%h) xs(%xs) : (tensor<4xf32>, tensor<4xf32>, tensor<5x3x4xf32>) -> tensor<4xf32>
  %s = rlx.sum %hn {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @g(%w: tensor<4xf32>, %h: tensor<4xf32>, %xs: tensor<5x3x4xf32>) -> tensor<4xf32> {
  %r = rlx.grad @loss(%w, %h, %xs) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<5x3x4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
