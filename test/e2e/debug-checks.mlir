// rlxc --debug-checks: the first op whose result holds a NaN or an Inf ends
// the call with an error naming the op and its location; without the flag
// the same model runs and returns the -inf.
// RUN: rlx-testdata npy %t.x.npy f32 7
// RUN: rlxc --debug-checks %s -o %t.checked.so
// RUN: not rlx-run %t.checked.so --fn logsq --input x=%t.x.npy 2>&1 | FileCheck %s --check-prefix=NEGINF
// NEGINF: rlx-run: error: entry point 'logsq': {{.*}}debug-checks.mlir:[[# @LINE + 21]]:8: rlx.log produced -inf
// log of a negative: a NaN; the ops before it (an input, a square) pass.
// RUN: not rlx-run %t.checked.so --fn logneg --input x=%t.x.npy 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: rlx-run: error: entry point 'logneg': {{.*}}debug-checks.mlir:[[# @LINE + 26]]:8: rlx.log produced a NaN
// Finite results pass the checks.
// RUN: rlx-run %t.checked.so --fn square --input x=%t.x.npy | FileCheck %s --check-prefix=OK
// OK: y: f32[7] = [9, 4, 1, 0, 1, 4, 9]
// Without the flag there are no checks: the -inf comes back.
// RUN: rlxc %s -o %t.so
// RUN: rlx-run %t.so --fn logsq --input x=%t.x.npy | FileCheck %s --check-prefix=UNCHECKED
// UNCHECKED: y: f32[7] = [2.19722, 1.38629, 0, -inf, 0, 1.38629, 2.19722]
// RLX_DEBUG=ops logs each call's inputs and outputs: type, finite range and
// the non-finite elements.
// RUN: env RLX_DEBUG=ops rlx-run %t.so --fn logsq --input x=%t.x.npy 2>&1 | FileCheck %s --check-prefix=LOG
// LOG: rlx: logsq: input x f32[7] min=-3 max=3
// LOG-NEXT: rlx: logsq: output y f32[7] min=0 max=2.19722 -inf=1
// The checks read the result on the host: GPU targets refuse them.
// RUN: not rlxc --debug-checks --target=vulkan %s -o %t.vk.so 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: debug checks are for the cpu target, not vulkan
func.func @logsq(%x: tensor<?xf32> {rlx.name = "x"}) -> (tensor<?xf32> {rlx.name = "y"}) {
  %sq = rlx.mul %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %y = rlx.log %sq : tensor<?xf32>
  return %y : tensor<?xf32>
}
func.func @square(%x: tensor<?xf32> {rlx.name = "x"}) -> (tensor<?xf32> {rlx.name = "y"}) {
  %y = rlx.mul %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}
func.func @logneg(%x: tensor<?xf32> {rlx.name = "x"}) -> (tensor<?xf32> {rlx.name = "y"}) {
  %y = rlx.log %x : tensor<?xf32>
  return %y : tensor<?xf32>
}
