// tosa.cond_if becomes rlx.switch over outlined branches, else first (an i1
// index picks the first branch for false). A one-element condition is
// reshaped to tensor<i1>; a value a region uses from outside (%y) becomes a
// leading argument of both branches; a constant is cloned in, so the
// negate's zero points are still constants.
func.func @cond_if(%c: tensor<1xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.cond_if %c (%a = %x) : tensor<1xi1> (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = tosa.negate %a, %zp, %zp : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
    %s = tosa.add %n, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %s : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %m = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %m : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
