// A cond_if inside a while body is outlined from the outlined body; %y, used
// by the inner branch, is captured twice: a const of the loop, then an
// argument of the branches.
func.func @nested(%x: tensor<3xf32>, %n: tensor<i32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %four = "tosa.const"() {values = dense<4> : tensor<i32>} : () -> tensor<i32>
  %two = "tosa.const"() {values = dense<2> : tensor<i32>} : () -> tensor<i32>
  %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0:2 = tosa.while_loop (%a = %x, %b = %n) : (tensor<3xf32>, tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
    %p = tosa.greater %four, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<3xf32>, %b: tensor<i32>):
    %late = tosa.greater_equal %b, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %v = tosa.cond_if %late (%c = %a) : tensor<i1> (tensor<3xf32>) -> tensor<3xf32> {
    ^bb0(%c: tensor<3xf32>):
      %m = tosa.mul %c, %y, %shift : (tensor<3xf32>, tensor<3xf32>, tensor<1xi8>) -> tensor<3xf32>
      tosa.yield %m : tensor<3xf32>
    } else {
    ^bb0(%c: tensor<3xf32>):
      %s = tosa.add %c, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      tosa.yield %s : tensor<3xf32>
    }
    %i = tosa.add %b, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %v, %i : tensor<3xf32>, tensor<i32>
  }
  return %0#0 : tensor<3xf32>
}
