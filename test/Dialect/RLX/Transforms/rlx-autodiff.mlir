// RUN: rlx-opt %s -split-input-file -rlx-autodiff -verify-diagnostics | FileCheck %s

// Reverse mode: the forward sweep is cloned at the marker, then each op's
// VJP rule builds the adjoints in reverse order. Leaves are an input (behind
// a fresh identity) and a param.
// CHECK-LABEL: func @grad_input_and_param
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>)
// CHECK: %[[XI:.+]] = tensor.cast %[[X]]
// CHECK: %[[W:.+]] = rlx.param "w"
// CHECK: %[[M:.+]] = rlx.mul %[[XI]], %[[W]]
// CHECK: rlx.sum %[[M]]
// CHECK: %[[SEED:.+]] = rlx.add %[[ZERO:.+]], %[[ONE:.+]] : (tensor<f32>, tensor<f32>)
// CHECK: %[[G:.+]] = rlx.add
// CHECK-DAG: %[[GX:.+]] = rlx.mul %[[G]], %[[W]]
// CHECK-DAG: %[[GW:.+]] = rlx.mul %[[G]], %[[XI]]
// CHECK: return %[[GX]], %[[GW]]
// CHECK-NOT: rlx.grad
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grad_input_and_param(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g:2 = rlx.grad @f(%x) {wrt = array<i64: 0>, wrt_params = ["w"]} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Forward mode: one sweep, each op's JVP built right after its clone.
// CHECK-LABEL: func @jvp
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>, %[[T:.+]]: tensor<3xf32>)
// CHECK: %[[W:.+]] = rlx.param "w"
// CHECK: %[[M:.+]] = rlx.mul %{{.+}}, %[[W]]
// CHECK: %[[TM:.+]] = rlx.mul %[[T]], %[[W]]
// CHECK: %[[Y:.+]] = rlx.sum %[[M]]
// CHECK: %[[TY:.+]] = rlx.sum %[[TM]]
// CHECK: return %[[Y]], %[[TY]]
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = rlx.jvp @f(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// -----

// Markers compose: the grad of a function holding a grad expands the inner
// one first. No marker and no scratch function is left.
// CHECK-LABEL: func @second_derivative
// CHECK-NOT: rlx.grad
// CHECK-NOT: __rlx_ad
// CHECK: return
func.func private @cube(%x: tensor<f64>) -> tensor<f64> {
  %x2 = rlx.mul %x, %x : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %x3 = rlx.mul %x2, %x : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %x3 : tensor<f64>
}
func.func private @dcube(%x: tensor<f64>) -> tensor<f64> {
  %g = rlx.grad @cube(%x) {wrt = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return %g : tensor<f64>
}
func.func @second_derivative(%x: tensor<f64>) -> tensor<f64> {
  %g = rlx.grad @dcube(%x) {wrt = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return %g : tensor<f64>
}

// -----

// value_and_grad returns the value of the same forward sweep.
// CHECK-LABEL: func @value_and_grad
// CHECK: %[[V:.+]] = rlx.sum
// CHECK-NOT: rlx.sum %{{.+}} {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
// CHECK: return %[[V]]
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @value_and_grad(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %r:2 = rlx.value_and_grad @f(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<3xf32>
}

// -----

// A leaf that does not contribute gets zeros of its type; stop_gradient
// blocks the adjoint.
// CHECK-LABEL: func @zeros
// The adjoint reaching stop_gradient is dropped (dead ops stay until DCE).
// CHECK: rlx.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: %[[Z:.+]] = rlx.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT: return %[[Z]]
func.func private @f(%x: tensor<2xf32>, %y: tensor<f32>) -> tensor<f32> {
  %s = rlx.stop_gradient %x : tensor<2xf32>
  %t = rlx.sum %s {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<f32>
  %r = rlx.mul %t, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @zeros(%x: tensor<2xf32>, %y: tensor<f32>) -> tensor<2xf32> {
  %g = rlx.grad @f(%x, %y) {wrt = array<i64: 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

// hvp is the JVP of the gradient: forward over reverse, no Hessian.
// CHECK-LABEL: func @hvp
// CHECK-NOT: rlx.hvp
// CHECK-NOT: rlx.jvp
// CHECK-NOT: rlx.grad
// CHECK: return
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %e = rlx.exp %m : tensor<3xf32>
  %s = rlx.sum %e {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @hvp(%x: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<3xf32> {
  %h = rlx.hvp @f(%x) tangents(%v) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %h : tensor<3xf32>
}

// -----

// Negative: an op without rules is an error at its location.
func.func private @f(%x: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'tensor.collapse_shape' op has no VJP rule: it cannot be differentiated}}
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %s = rlx.sum %c {axes = array<i64: 0>} : (tensor<6xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @no_rule(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %g = rlx.grad @f(%x) {wrt = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// vmap of a per-example matmul is one batched contraction, not a loop; the
// unmapped weight stays whole.
// CHECK-LABEL: func @vmap_matmul
// CHECK-SAME: (%[[XS:.+]]: tensor<?x4xf32>, %[[W:.+]]: tensor<4x3xf32>)
// CHECK: %[[X3:.+]] = rlx.reshape %[[XS]] : (tensor<?x4xf32>) -> tensor<?x1x4xf32>
// CHECK: %[[Y:.+]] = rlx.matmul %[[X3]], %[[W]] : (tensor<?x1x4xf32>, tensor<4x3xf32>) -> tensor<?x1x3xf32>
// CHECK-NOT: rlx.matmul
// CHECK-NOT: scf.for
// CHECK-NOT: rlx.vmap
func.func private @f(%x: tensor<4xf32>, %w: tensor<4x3xf32>) -> tensor<3xf32> {
  %x2 = rlx.reshape %x : (tensor<4xf32>) -> tensor<1x4xf32>
  %y = rlx.matmul %x2, %w : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
  %r = rlx.reshape %y : (tensor<1x3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @vmap_matmul(%xs: tensor<?x4xf32>, %w: tensor<4x3xf32>) -> tensor<?x3xf32> {
  %ys = rlx.vmap @f(%xs, %w) {in_axes = [0, unit], out_axes = array<i64: 0>} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %ys : tensor<?x3xf32>
}

// -----

// A gradient of a function that takes a gradient through a vmapped
// custom_vjp: the batched rule adds @sq_fwd__vmap and @sq_bwd__vmap, and the
// outer gradient inlines the inner one's calls of them (the functions a rule
// adds are in the pass's symbol table).
// CHECK-LABEL: func @grad_sum_grad
// CHECK-NOT: rlx.grad
// CHECK-NOT: rlx.vmap
// CHECK-NOT: call @sq_fwd__vmap
// CHECK-NOT: call @sq_bwd__vmap
// CHECK: return
func.func private @sq(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func private @sq_fwd(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %y = rlx.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %y, %x : tensor<3xf64>, tensor<3xf64>
}
func.func private @sq_bwd(%x: tensor<3xf64>, %g: tensor<3xf64>) -> tensor<3xf64> {
  %r = rlx.mul %g, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}
func.func private @one(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = rlx.custom_vjp @sq(%x) {fwd = @sq_fwd, bwd = @sq_bwd} : (tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func private @loss(%xs: tensor<2x3xf64>) -> tensor<f64> {
  %ys = rlx.vmap @one(%xs) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = rlx.sum %ys {axes = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func private @sum_grad(%xs: tensor<2x3xf64>) -> tensor<f64> {
  %g = rlx.grad @loss(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = rlx.sum %g {axes = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_sum_grad(%xs: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %g = rlx.grad @sum_grad(%xs) {wrt = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %g : tensor<2x3xf64>
}

// -----

// Negative: a marker whose callee calls a recursive function; inlining the
// calls would never end.
func.func private @self(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = func.call @self(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sum_self(%x: tensor<3xf32>) -> tensor<f32> {
  %y = func.call @self(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grad_reaches_recursion(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'rlx.grad' op cannot transform @sum_self: it reaches recursive @self (@self -> @self)}}
  %g = rlx.grad @sum_self(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Negative: a function that differentiates itself.
func.func @grad_of_itself(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'rlx.grad' op cannot transform @grad_of_itself: it is recursive (@grad_of_itself -> @grad_of_itself)}}
  %g = rlx.grad @grad_of_itself(%x) {wrt = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}

// -----

// Negative: mutual recursion through a vmap and a call.
func.func private @b(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = func.call @a(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @a(%x: tensor<3xf32>) -> tensor<3xf32> {
  %x2 = rlx.reshape %x : (tensor<3xf32>) -> tensor<1x3xf32>
  // expected-error @+1 {{'rlx.vmap' op cannot transform @b: it is recursive (@b -> @a -> @b)}}
  %y2 = rlx.vmap @b(%x2) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %y = rlx.reshape %y2 : (tensor<1x3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_recursion(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = func.call @a(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// Negative: a custom_vjp whose bwd calls back into the differentiated
// function.
func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @id_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %x, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @id_bwd(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  %s = func.call @h(%x) : (tensor<3xf32>) -> tensor<f32>
  %r = rlx.mul %g, %s : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @h(%x: tensor<3xf32>) -> tensor<f32> {
  %y = rlx.custom_vjp @id(%x) {fwd = @id_fwd, bwd = @id_bwd} : (tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grad_custom_recursion(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'rlx.grad' op cannot transform @h: it is recursive (@h -> @id_bwd -> @h)}}
  %g = rlx.grad @h(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Negative: a remat of the function it is in.
func.func private @r(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.remat @r(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sum_r(%x: tensor<3xf32>) -> tensor<f32> {
  %y = func.call @r(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grad_remat_recursion(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'rlx.grad' op cannot transform @sum_r: it reaches recursive @r (@r -> @r)}}
  %g = rlx.grad @sum_r(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// A recursive function the marker does not reach is left alone.
// CHECK-LABEL: func @grad_beside_recursion
// CHECK: rlx.mul
// CHECK-NOT: rlx.grad
// CHECK: return
// CHECK-LABEL: func @countdown
// CHECK: call @countdown
func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %y {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grad_beside_recursion(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = rlx.grad @sq(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
func.func @countdown(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = func.call @countdown(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
