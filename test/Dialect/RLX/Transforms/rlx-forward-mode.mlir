// RUN: rlx-opt %s -split-input-file -rlx-forward-mode | FileCheck %s

// jvp: one sweep, each op's JVP right after its clone; the param's tangent
// is given by name.
// CHECK-LABEL: func @jvp
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>, %[[TW:.+]]: tensor<3xf32>)
// CHECK: %[[W:.+]] = rlx.param "w"
// CHECK: %[[M:.+]] = rlx.mul %[[X]], %[[W]]
// CHECK: %[[TM:.+]] = rlx.mul %[[X]], %[[TW]]
// CHECK: %[[Y:.+]] = rlx.sum %[[M]]
// CHECK: %[[TY:.+]] = rlx.sum %[[TM]]
// CHECK: return %[[Y]], %[[TY]]
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @jvp(%x: tensor<3xf32>, %tw: tensor<3xf32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = rlx.jvp @f(%x) tangents(%tw) {wrt_params = ["w"]} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// -----

// Negative: a jvp whose callee holds a grad is not ready (reverse mode
// expands the grad first); a grad is not this pass's kind.
// CHECK-LABEL: func @not_ready
// CHECK: rlx.jvp @df
// CHECK-LABEL: func private @df
// CHECK: rlx.grad @f
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @not_ready(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<3xf32> {
  %r:2 = rlx.jvp @df(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %r#1 : tensor<3xf32>
}
func.func private @df(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = rlx.grad @f(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// all_reduce max: the tangent of the replicas holding the maximum, split
// between ties (one share each, summed over replicas).
// CHECK-LABEL: func @jvp_all_reduce_max
// CHECK-SAME: (%{{.+}}: tensor<3xf32>, %[[T:.+]]: tensor<3xf32>)
// CHECK: %[[M:.+]] = rlx.all_reduce %[[X:.+]] {axis = "i", kind = "max"}
// CHECK: %[[EQ:.+]] = rlx.compare "eq", %[[X]], %[[M]]
// CHECK: %[[MASK:.+]] = rlx.cast %[[EQ]]
// CHECK: %[[N:.+]] = rlx.all_reduce %[[MASK]] {axis = "i", kind = "sum"}
// CHECK: %[[SHARE:.+]] = rlx.div %[[MASK]], %[[N]]
// CHECK: %[[TS:.+]] = rlx.mul %[[T]], %[[SHARE]]
// CHECK: %[[DT:.+]] = rlx.all_reduce %[[TS]] {axis = "i", kind = "sum"}
// CHECK: return %[[M]], %[[DT]]
func.func private @pmax(%x: tensor<3xf32>) -> tensor<3xf32> {
  %m = rlx.all_reduce %x {axis = "i", kind = "max"} : tensor<3xf32>
  return %m : tensor<3xf32>
}
func.func @jvp_all_reduce_max(%x: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %r:2 = rlx.jvp @pmax(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}
